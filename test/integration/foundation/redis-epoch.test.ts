import { EventPublisher, PubsubRegistrations, topics } from '../../../shared/events';
import { EventHistory } from '../../../shared/platform/event-bus';
import { Metrics } from '../../../shared/platform/metrics';
import {
  checkEvictionPolicy,
  createRedis,
  closeRedis,
  EPOCH_SEQ_SPAN,
  RedisEpoch,
  RedisEvictionRefused,
  type Redis,
  type RedisLoss,
} from '../../../shared/platform/redis';
import { hashStreamToken, SignedStreamTokens, StreamTokens, streamTokenKeys } from '../../../shared/platform/stream-tokens';
import { QuoteStreamTokens } from '../../../shared/quotes';
import { createApp } from '../../../api/app';
import { NetworksService } from '../../../shared/networks';
import { networkFile, randomAddress } from '../../support/fixtures';
import { request } from '../../support/http';
import { quoteBody, STRATEGY_ROWS } from '../../support/quotes';
import { createTestEnv, type TestEnv } from '../../support/test-env';
import { captureLogs } from '../workers/log-capture';
import { startTestRedis, type TestRedis } from '../../faults/redis-server';
import { startRedisCluster, type TestRedisCluster } from '../../support/redis-cluster';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { clusterView, failoverLosingWrites, portOf, shardOf, shardWithReplica, waitUntil } from '../../support/cluster-failover';
import { isLiveMaster, keySlot, primaryNodes } from '../../../shared/platform/redis';
import { EventKeys } from '../../../shared/platform/event-bus';

const execFileAsync = promisify(execFile);

/**
 * The Redis data epoch (shared/platform/redis/redis-epoch.ts) on a private redis-server the test
 * may flush: a loss is noticed by one check, a topic's seq never goes backwards across it, a
 * client behind the loss is told (recovered: false) and gets the new epoch's events, and what
 * must outlive Redis (registrations, a quote's stream token) comes back from Postgres.
 */
describe('the Redis data epoch', () => {
  let redis: TestRedis;
  let env: TestEnv;
  let client: Redis;
  let epoch: RedisEpoch;
  const losses: RedisLoss[] = [];
  const logs = captureLogs();
  const metrics = new Metrics(false);

  beforeAll(async () => {
    redis = await startTestRedis({ persistence: false });
    env = await createTestEnv({ REDIS_URL: redis.url });
    client = env.redis;
    epoch = new RedisEpoch(client, env.db, { prefix: env.config.REDIS_PREFIX, name: 'epoch-test', logger: logs.logger, metrics });
    epoch.onLoss((l) => {
      losses.push(l);
    });
  }, 60_000);

  afterAll(async () => {
    await epoch?.close();
    await env?.close();
    await redis?.close();
  });

  it('opens the first epoch on an empty Redis with floor 0: seqs start at 1 as before', async () => {
    expect(await epoch.start()).toBeNull();
    expect(epoch.current).toEqual({ epoch: 1, floor: 0 });
    const pub = new EventPublisher({ redis: client, config: env.config });
    expect((await pub.publish(topics.quotesRequests(31337), 'rfq_request', { quote_id: 'a' } as never)).seq).toBe(1);
    expect(await epoch.check()).toBeNull();
  });

  it('a FLUSHALL is noticed by the next check; the topic counter restarts above the new floor and a client behind it gets the new events', async () => {
    const pub = new EventPublisher({ redis: client, config: env.config });
    const topic = topics.quotesRequests(31337);
    await pub.publish(topic, 'rfq_request', { quote_id: 'b' } as never);
    const before = (await new EventHistory(client, env.config).head(topic.key)) as number;
    expect(before).toBe(2);

    await client.flushall();
    // Before the check: the publish is refused rather than numbered in the lost epoch.
    await expect(pub.publish(topic, 'rfq_request', { quote_id: 'c' } as never)).rejects.toThrow(/EPOCHLOST/);

    const loss = await epoch.check();
    expect(loss).toMatchObject({ reason: 'epoch_missing', previousEpoch: 1, epoch: expect.any(Number) });
    expect(losses).toEqual([loss]);
    expect(epoch.current!.floor).toBe((loss!.epoch - 1) * EPOCH_SEQ_SPAN);
    const [{ n }] = await env.db.query(`SELECT count(*)::int AS n FROM redis_epochs`);
    expect(n).toBe(2);
    expect(await metrics.registry.getSingleMetricAsString('rfq_redis_data_loss_total')).toContain('reason="epoch_missing"} 1');

    const first = await pub.publish(topic, 'rfq_request', { quote_id: 'c' } as never);
    expect(first.seq).toBe(epoch.current!.floor + 1);
    await pub.publish(topic, 'rfq_request', { quote_id: 'd' } as never);

    // A client that had seq 2 is told it was not recovered, resumes at the floor and gets both new events.
    const read = await new EventHistory(client, env.config).readSince(topic.key, before);
    expect(read).toMatchObject({ recovered: false, resumeAfter: epoch.current!.floor, head: epoch.current!.floor + 2 });
    expect(read.events.map((e) => (JSON.parse(e.data) as { quote_id: string }).quote_id)).toEqual(['c', 'd']);
    // One that is level with the new epoch reads normally.
    expect(await new EventHistory(client, env.config).readSince(topic.key, first.seq)).toMatchObject({ recovered: true, events: [expect.anything()] });
  });

  it('another process opening the epoch first counts as the same loss here (epoch_replaced), and a heartbeat gone backwards as writes rolled back', async () => {
    const other = new RedisEpoch(client, env.db, { prefix: env.config.REDIS_PREFIX, name: 'other', logger: logs.logger });
    await client.del(epoch.key);
    await other.check();
    const replaced = await epoch.check();
    expect(replaced).toMatchObject({ reason: 'epoch_replaced', epoch: other.current!.epoch });
    expect(await epoch.check()).toBeNull();

    await client.hset(epoch.key, 'beat', '0');
    const rolledBack = await epoch.check();
    expect(rolledBack).toMatchObject({ reason: 'writes_rolled_back', previousEpoch: replaced!.epoch });
    expect(rolledBack!.epoch).toBeGreaterThan(replaced!.epoch);
    await other.close();
  });

  it('keys evicted (an evicting Redis accepted by REDIS_ALLOW_EVICTION) are a loss too, and open one new epoch', async () => {
    await epoch.check();
    const other = new RedisEpoch(client, env.db, { prefix: env.config.REDIS_PREFIX, name: 'other', logger: logs.logger });
    await other.start();
    const before = epoch.current!.epoch;
    await client.config('SET', 'maxmemory-policy', 'allkeys-random');
    await client.config('SET', 'maxmemory', '4mb');
    try {
      const junk = 'x'.repeat(64 * 1024);
      for (let i = 0; i < 200; i++) await client.set(`${env.config.REDIS_PREFIX}junk:${i}`, junk).catch(() => undefined);
    } finally {
      await client.config('SET', 'maxmemory', '0');
      await client.config('SET', 'maxmemory-policy', 'noeviction');
    }
    const [mine, theirs] = await Promise.all([epoch.check(), other.check()]);
    // The epoch key itself may have been evicted: then it is missing rather than evicted.
    expect(['keys_evicted', 'epoch_missing', 'epoch_replaced']).toContain(mine?.reason);
    expect(['keys_evicted', 'epoch_missing', 'epoch_replaced']).toContain(theirs?.reason);
    expect(mine!.epoch).toBe(theirs!.epoch);
    expect(mine!.epoch).toBe(before + 1);
    expect(mine!.reason === 'keys_evicted' || theirs!.reason === 'keys_evicted' || mine!.reason === 'epoch_missing').toBe(true);
    await other.close();
  });

  it('a Redis restarted empty is noticed with its run_id changed', async () => {
    await redis.stop('SIGKILL');
    await redis.start();
    let loss: RedisLoss | null = null;
    const until = Date.now() + 20_000;
    while (!loss && Date.now() < until) loss = await epoch.check().catch(() => null);
    expect(loss).toMatchObject({ reason: 'epoch_missing', restarted: true });
  }, 30_000);

  it('registrations come back from Postgres, without those of removed keys', async () => {
    const regs = new PubsubRegistrations(client, env.config, env.db);
    const kept = randomAddress();
    const keyed = randomAddress();
    const revoked = randomAddress();
    await regs.register(31337, kept, 'premium');
    await regs.register(31337, keyed, 'freemium', 'key-1');
    await regs.register(31337, revoked, 'premium', 'key-2');
    await client.flushall();
    expect(await regs.registered(31337)).toEqual([]);

    expect(await regs.restore(async (ids) => ids.filter((id) => id === 'key-2'))).toBe(2);
    expect((await regs.registered(31337, 'premium')).map((a) => a.toLowerCase())).toEqual([kept.toLowerCase()]);
    expect(await regs.tierOf(31337, keyed)).toBe('freemium');
    expect(await regs.tierOf(31337, revoked)).toBeNull();
    const [{ n }] = await env.db.query(`SELECT count(*)::int AS n FROM pubsub_registrations WHERE key_id = 'key-2'`);
    expect(n).toBe(0);
  });

  it('an announcement reads the premium makers only within one intact epoch: refused on a Redis that lost them, until the new epoch restored them', async () => {
    const regs = new PubsubRegistrations(client, env.config, env.db);
    const maker = randomAddress();
    await regs.register(31338, maker, 'premium');
    await epoch.check();
    const premium = async () => (await regs.registeredInEpoch(31338, 'premium')).map((a) => a.toLowerCase());
    expect(await premium()).toEqual([maker.toLowerCase()]);

    await client.flushall();
    // What the workers read before (registered): nothing, as if no maker were registered. The
    // fault suite saw that answer published after the new epoch opened: the quote reached the
    // request feed and never the premium maker's rfq_maker topic.
    expect(await regs.registered(31338, 'premium')).toEqual([]);
    await expect(regs.registeredInEpoch(31338, 'premium')).rejects.toThrow(/^EPOCHLOST/);

    // The new epoch, opened with the registrations restored first (what every role's epoch does before it opens).
    await regs.restore(async () => []);
    expect((await epoch.check())?.reason).toBe('epoch_missing');
    expect(await premium()).toEqual([maker.toLowerCase()]);
  });

  it("a quote's stream token minted before a loss still verifies: a signed one needs nothing of Redis, a recorded one is read from the quote row and written back", async () => {
    await new NetworksService(env.db).upsertNetwork(networkFile(31337));
    const { app } = createApp(env);
    const { body } = await request(app)
      .post('/api/quote')
      .send(quoteBody(randomAddress(), STRATEGY_ROWS[0].legs, { expires_in: 60 }))
      .expect(201);
    const token = body.stream_token as string;
    const tokens = new StreamTokens(client, env.config.REDIS_PREFIX);
    const durable = new QuoteStreamTokens(tokens, new SignedStreamTokens(streamTokenKeys(env.config)), env.db, env.config.QUOTE_STREAM_GRACE_SECONDS);
    const [row] = await env.db.query(`SELECT (extract(epoch FROM expires_at) * 1000)::bigint::text AS e FROM quotes WHERE id = $1`, [body.quote.id]);
    const end = Number(row.e) + env.config.QUOTE_STREAM_GRACE_SECONDS * 1000;
    // The create's token is signed: no record in Redis, before or after the loss.
    expect(await tokens.verify('rfq', token)).toBeNull();
    expect((await durable.verify('rfq', token))?.expiresAt).toBe(end);
    await client.flushall();
    expect((await durable.verify('rfq', token))?.expiresAt).toBe(end);

    // A recorded token (a Dutch quote's, or one minted before signed tokens) on the same row.
    const recorded = await tokens.mint('rfq', 60);
    await env.db.query(`UPDATE quotes SET stream_token_hash = $2 WHERE id = $1`, [body.quote.id, hashStreamToken(recorded)]);
    expect(await tokens.verify('rfq', recorded)).not.toBeNull();
    await client.flushall();
    expect(await tokens.verify('rfq', recorded)).toBeNull();
    const rec = await durable.verify('rfq', recorded);
    expect(rec?.expiresAt).toBe(end);
    expect(await tokens.verify('rfq', recorded)).not.toBeNull();
    expect(await durable.verify('rfq', 'x'.repeat(43))).toBeNull();
  });
});

describe('the eviction policy check', () => {
  let redis: TestRedis;
  let client: Redis;
  const logs = captureLogs();

  beforeAll(async () => {
    redis = await startTestRedis({ persistence: false, args: ['--maxmemory', '64mb', '--maxmemory-policy', 'allkeys-lru'] });
    client = createRedis(redis.url);
  });

  afterAll(async () => {
    await closeRedis(client);
    await redis?.close();
  });

  it('refuses anything but noeviction, naming the policy and the fix, unless allowed', async () => {
    const refused = checkEvictionPolicy(client, { allowEviction: false, logger: logs.logger });
    await expect(refused).rejects.toBeInstanceOf(RedisEvictionRefused);
    await expect(refused).rejects.toThrow(/maxmemory-policy allkeys-lru.*CONFIG SET maxmemory-policy noeviction.*REDIS_ALLOW_EVICTION=true/);

    const metrics = new Metrics(false);
    const allowed = await checkEvictionPolicy(client, { allowEviction: true, logger: logs.logger, metrics });
    expect(Object.values(allowed.policies)).toEqual(['allkeys-lru']);
    expect(await metrics.registry.getSingleMetricAsString('rfq_redis_eviction_allowed')).toMatch(/ 1$/m);

    await client.config('SET', 'maxmemory-policy', 'noeviction');
    expect(Object.values((await checkEvictionPolicy(client, { allowEviction: false, logger: logs.logger })).policies)).toEqual(['noeviction']);
  });

  it('a Redis that refuses CONFIG gets a warning and the metric, not a refusal', async () => {
    await client.call('ACL', 'SETUSER', 'noconfig', 'on', '>pw', '~*', '&*', '+@all', '-config');
    const limited = createRedis(redis.url.replace('redis://', 'redis://noconfig:pw@'));
    try {
      const metrics = new Metrics(false);
      const out = await checkEvictionPolicy(limited, { allowEviction: false, logger: logs.logger, metrics });
      expect(out.unreadable).toHaveLength(1);
      expect(await metrics.registry.getSingleMetricAsString('rfq_redis_config_unreadable')).toMatch(/ 1$/m);
      expect(logs.lines().some((l) => String(l.msg).startsWith('Redis refused CONFIG GET maxmemory-policy'))).toBe(true);
    } finally {
      await closeRedis(limited);
    }
  });
});

describe('the Redis data epoch on a Redis Cluster', () => {
  let cluster: TestRedisCluster;
  let env: TestEnv;
  let epoch: RedisEpoch;
  const logs = captureLogs();
  const losses: RedisLoss[] = [];
  const metrics = new Metrics(false);

  beforeAll(async () => {
    cluster = await startRedisCluster({ masters: 3, replicasPerMaster: 1 });
    env = await createTestEnv({ REDIS_CLUSTER_NODES: cluster.nodesEnv });
    epoch = new RedisEpoch(env.redis, env.db, { prefix: env.config.REDIS_PREFIX, name: 'cluster-epoch-test', logger: logs.logger, metrics });
    epoch.onLoss((l) => {
      losses.push(l);
    });
    await epoch.start();
  }, 120_000);

  /** A request-feed topic whose keys live on another master than the epoch key: a loss there leaves the epoch key intact. */
  async function topicAwayFromEpochKey() {
    const epochMaster = (await shardOf(cluster, keySlot(epoch.key))).master.id;
    for (let chain = 1; ; chain++) {
      const topic = topics.quotesRequests(chain);
      const seqKey = new EventKeys(env.config.REDIS_PREFIX).seq(topic.key);
      const shard = await shardOf(cluster, keySlot(seqKey));
      if (shard.master.id !== epochMaster) return { topic, seqKey, shard };
    }
  }

  afterAll(async () => {
    await epoch?.close();
    await env?.close();
    await cluster?.close();
  });

  it('a publish right after every master was flushed, before any check, still numbers above the new floor', async () => {
    const pub = new EventPublisher({ redis: env.redis, config: env.config });
    const topic = topics.quotesRequests(31337);
    expect((await pub.publish(topic, 'rfq_request', { quote_id: 'a' } as never)).seq).toBe(1);
    await pub.publish(topic, 'rfq_request', { quote_id: 'b' } as never);
    const before = epoch.current!;

    await Promise.all(primaryNodes(env.redis).map((n) => n.flushall()));
    // The epoch key is in another slot than the topic: the publish cannot read it in its script.
    // It finds the counter to be created, reads the epoch afresh, notices the loss and opens the new epoch first.
    const after = await pub.publish(topic, 'rfq_request', { quote_id: 'c' } as never);
    expect(epoch.current!.epoch).toBe(before.epoch + 1);
    expect(after.seq).toBe(epoch.current!.floor + 1);
    // An existing counter is not held up: the next publish goes through in one step.
    expect((await pub.publish(topic, 'rfq_request', { quote_id: 'd' } as never)).seq).toBe(epoch.current!.floor + 2);
    const read = await new EventHistory(env.redis, env.config).readSince(topic.key, 2);
    expect(read).toMatchObject({ recovered: false, resumeAfter: epoch.current!.floor });
    expect(read.events.map((e) => (JSON.parse(e.data) as { quote_id: string }).quote_id)).toEqual(['c', 'd']);
  }, 60_000);

  it('one master flushed while the epoch key (on another) is intact: a publish there before any check numbers above a new floor, and a check alone sees it too', async () => {
    const { topic, seqKey, shard } = await topicAwayFromEpochKey();
    const pub = new EventPublisher({ redis: env.redis, config: env.config });
    await pub.publish(topic, 'rfq_request', { quote_id: 'e' } as never);
    const seen = (await pub.publish(topic, 'rfq_request', { quote_id: 'f' } as never)).seq;
    expect(await epoch.check()).toBeNull();
    const before = epoch.current!;
    const flush = () =>
      primaryNodes(env.redis)
        .find((n) => `${n.options.host}:${n.options.port}` === shard.master.address)!
        .flushall();

    await flush();
    expect(await env.redis.exists(epoch.key)).toBe(1);
    // The counter is gone with its master: the publish reads that master's marker, finds it gone,
    // and the loss is noticed, a new epoch opened and the counter started above its floor first.
    const after = await pub.publish(topic, 'rfq_request', { quote_id: 'g' } as never);
    expect(losses.at(-1)).toMatchObject({
      reason: 'shard_flushed',
      previousEpoch: before.epoch,
      epoch: before.epoch + 1,
      shard: { node: shard.master.address },
    });
    expect(after.seq).toBe(epoch.current!.floor + 1);
    const read = await new EventHistory(env.redis, env.config).readSince(topic.key, seen);
    expect(read).toMatchObject({ recovered: false, resumeAfter: epoch.current!.floor });
    expect(read.events.map((e) => (JSON.parse(e.data) as { quote_id: string }).quote_id)).toEqual(['g']);
    expect(await epoch.check()).toBeNull();

    // Without a publish, the next check finds the marker gone.
    await flush();
    expect(await epoch.check()).toMatchObject({ reason: 'shard_flushed', epoch: before.epoch + 2, shard: { node: shard.master.address } });
    expect(await metrics.registry.getSingleMetricAsString('rfq_redis_data_loss_total')).toContain('reason="shard_flushed"} 2');
    expect(await env.redis.get(seqKey)).toBeNull();
    expect(await epoch.check()).toBeNull();
  }, 60_000);

  it('resharding is not a loss: a slot moved with its marker to another master, and the master it left given a new marker', async () => {
    expect(await epoch.check()).toBeNull();
    const before = epoch.current!;
    const lossesBefore = losses.length;
    const view = await clusterView(cluster);
    const masters = view.filter(isLiveMaster);
    // The first slot of a master holds its marker (the one a check made for it).
    const [from, to] = masters;
    const slot = from.slots[0][0];
    expect(await env.redis.exists(epoch.markerKeyOf(slot)!)).toBe(1);
    await execFileAsync(
      'redis-cli',
      ['--cluster', 'reshard', from.address, '--cluster-from', from.id, '--cluster-to', to.id, '--cluster-slots', '1', '--cluster-yes'],
      { timeout: 60_000 },
    );
    await waitUntil(async () => (await shardOf(cluster, slot)).master.id === to.id, 30_000, 'the slot served by the other master');
    expect(await epoch.check()).toBeNull();
    expect(await epoch.check()).toBeNull();
    expect(losses.length).toBe(lossesBefore);
    expect(epoch.current).toEqual(before);
    // The master it left holds a marker again, in one of the slots it still serves.
    const left = (await clusterView(cluster)).find((n) => n.id === from.id)!;
    expect(await env.redis.exists(epoch.markerKeyOf(left.slots[0][0])!)).toBe(1);
  }, 120_000);

  it('a master killed with writes its replica never got: the promoted replica takes no publish before a check, which sees the failover as a loss', async () => {
    const { topic, seqKey } = await topicAwayFromEpochKey();
    // Earlier cases flushed and resharded this cluster: the failover needs a replica in sync first.
    const shard = await shardWithReplica(cluster, keySlot(seqKey));
    const pub = new EventPublisher({ redis: env.redis, config: env.config });
    await pub.publish(topic, 'rfq_request', { quote_id: 'h' } as never);
    expect(await epoch.check()).toBeNull();
    const before = epoch.current!;
    const master = cluster.nodes.find((n) => n.port === portOf(shard.master))!;
    const replica = cluster.nodes.find((n) => n.port === portOf(shard.replicas[0]))!;

    let seen = 0;
    const lost = await failoverLosingWrites(master, replica, seqKey, async () => {
      // Acknowledged by the master after the cut: a client holds these seqs, the replica will not.
      await pub.publish(topic, 'rfq_request', { quote_id: 'i' } as never);
      seen = (await pub.publish(topic, 'rfq_request', { quote_id: 'j' } as never)).seq;
    });
    expect(lost.onMaster).toBe(seen);
    expect(lost.onReplica).toBe(seen - 2);

    // The replica is promoted by the cluster itself; the first publish that reaches it is refused
    // by the script (a master no check has seen), checks, and is numbered in the new epoch.
    await waitUntil(async () => (await shardOf(cluster, keySlot(seqKey), [master.port])).master.id === shard.replicas[0].id, 60_000, 'the replica promoted');
    const after = await pub.publish(topic, 'rfq_request', { quote_id: 'k' } as never);
    expect(losses.at(-1)).toMatchObject({ reason: 'master_failed_over', previousEpoch: before.epoch, shard: { node: shard.replicas[0].address } });
    expect(after.seq).toBe(epoch.current!.floor + 1);
    const read = await new EventHistory(env.redis, env.config).readSince(topic.key, seen);
    expect(read).toMatchObject({ recovered: false, resumeAfter: epoch.current!.floor });
    expect(read.events.map((e) => (JSON.parse(e.data) as { quote_id: string }).quote_id)).toEqual(['k']);
    expect(await epoch.check()).toBeNull();
  }, 120_000);
});
