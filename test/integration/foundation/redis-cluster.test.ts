import calculateSlot from 'cluster-key-slot';
import type IORedis from 'ioredis';
import type { Socket } from 'phoenix';
import { consumeAll, createLimiter } from '../../../api/auth/rate-limit';
import { WriteBudgets } from '../../../api/auth/write-budgets';
import { EventPublisher, quotesRequestsTopic, topics } from '../../../shared/events';
import { EventKeys } from '../../../shared/platform/event-bus';
import { primaryNodes } from '../../../shared/platform/redis';
import { hashStreamToken, StreamTokens } from '../../../shared/platform/stream-tokens';
import { NetworksService } from '../../../shared/networks';
import { networkFile, randomAddress } from '../../support/fixtures';
import { request } from '../../support/http';
import { quoteBody, STRATEGY_ROWS } from '../../support/quotes';
import { startRedisCluster, type TestRedisCluster } from '../../support/redis-cluster';
import { createTestEnv, type TestEnv } from '../../support/test-env';
import { bearer, newWallet, signIn } from '../../support/wallets';
import { startWorkers, type Workers } from '../../support/workers';
import { disconnect, join, phoenixSocket, startReplica, waitFor, type Replica } from '../socket/socket-harness';

/**
 * The service on a real Redis Cluster (three masters started by the test on this machine's
 * redis-server): with REDIS_CLUSTER_NODES set, a quote created through the API reaches a maker
 * on the socket tier through the BullMQ workers, over sharded pub/sub; sign-in, registrations,
 * stream tokens, rate limits, idempotency and the readiness probe work on the cluster client.
 */
describe('on a Redis Cluster', () => {
  let cluster: TestRedisCluster;
  let env: TestEnv;
  let replica: Replica;
  let workers: Workers;
  const sockets: Socket[] = [];

  beforeAll(async () => {
    cluster = await startRedisCluster({ masters: 3 });
    env = await createTestEnv({ REDIS_CLUSTER_NODES: cluster.nodesEnv });
    await new NetworksService(env.db).upsertNetwork(networkFile(31337));
    replica = await startReplica(env, { withApi: true });
    workers = startWorkers(env);
  });
  afterAll(async () => {
    await Promise.all(sockets.map(disconnect));
    await workers?.close();
    await replica?.close();
    await env?.close();
    await cluster?.close();
  });

  const client = () => {
    const s = phoenixSocket(replica.url);
    sockets.push(s);
    return s;
  };

  it('runs every Redis user on the cluster client: its masters are the three started', () => {
    expect(env.redis.isCluster).toBe(true);
    expect(
      primaryNodes(env.redis)
        .map((n) => n.options.port)
        .sort(),
    ).toEqual(cluster.nodes.map((n) => n.port).sort());
  });

  it('a quote created through the API reaches a registered maker on the socket through the workers, over sharded pub/sub', async () => {
    const app = replica.app;
    // Sign-in (nonce store) and registration (per-chain MULTI) on the cluster.
    const maker = newWallet();
    const token = await signIn(app, maker);
    await request(app).post('/api/pubsub/freemium').set(bearer(token)).send({ chain_id: 31337 }).expect(200);
    const feed = await join(client(), quotesRequestsTopic(31337), { token });
    expect(feed.reply.status).toBe('ok');

    const taker = randomAddress();
    const body = quoteBody(taker, STRATEGY_ROWS[7].legs);
    const created = await request(app).post('/api/quote').set('Idempotency-Key', 'cluster-quote-1-00000000000000000000').send(body).expect(201);
    const quoteId = created.body.quote.id as string;
    // The taker's private stream: its token and its topic's keys live in one slot.
    const stream = await join(client(), `rfq_stream:${created.body.stream_token as string}`);
    expect(stream.reply.status).toBe('ok');

    await waitFor(() => feed.events.some((e) => e.payload.quote_id === quoteId), 20_000, 'the rfq_request on the maker feed');
    const mine = feed.events.filter((e) => e.payload.quote_id === quoteId);
    expect(mine).toHaveLength(1);
    expect(mine[0].event).toBe('rfq_request');
    expect(JSON.stringify(mine)).not.toContain(taker.slice(2).toLowerCase());

    // The same Idempotency-Key answers the same quote.
    const again = await request(app).post('/api/quote').set('Idempotency-Key', 'cluster-quote-1-00000000000000000000').send(body).expect(201);
    expect(again.body.quote.id).toBe(quoteId);

    // The live channel is a shard channel, subscribed on the master that owns its slot only.
    const channel = new EventKeys(env.config.REDIS_PREFIX).live(topics.quotesRequests(31337).key);
    const subscribedOn = await Promise.all(
      primaryNodes(env.redis).map(async (n) => ({
        sharded: ((await n.call('PUBSUB', 'SHARDCHANNELS', `${env.config.REDIS_PREFIX}*`)) as string[]).includes(channel),
        plain: (await n.call('PUBSUB', 'CHANNELS', `${env.config.REDIS_PREFIX}*`)) as string[],
        owns: await ownsSlot(n, calculateSlot(channel)),
      })),
    );
    expect(subscribedOn.filter((n) => n.sharded)).toHaveLength(1);
    expect(subscribedOn.find((n) => n.sharded)?.owns).toBe(true);
    expect(subscribedOn.flatMap((n) => n.plain)).toEqual([]);

    // A standard quote's token is signed: Redis holds nothing of it, so there is nothing to revoke
    // there (its quote's state is its revocation). A stored token (what a Dutch create mints) is
    // revoked in Redis, and the notice travels over sharded pub/sub too: the socket ends the channel.
    const tokens = new StreamTokens(env.redis, env.config.REDIS_PREFIX);
    expect(await tokens.revoke('rfq', created.body.stream_token as string)).toBe(false);
    const stored = await tokens.mint('rfq', 60);
    const storedStream = await join(client(), `rfq_stream:${stored}`);
    expect(storedStream.reply.status).toBe('ok');
    expect(await tokens.revoke('rfq', stored)).toBe(true);
    await waitFor(() => storedStream.ends.length > 0, 10_000, 'the revoked stream to be closed');
    expect(stream.ends).toHaveLength(0);
  });

  it('publishes once per idempotency key and keeps each topic in order', async () => {
    const pub = new EventPublisher({ redis: env.redis, config: env.config });
    const ref = topics.rfqStream(hashStreamToken(await new StreamTokens(env.redis, env.config.REDIS_PREFIX).mint('rfq', 60)));
    expect(await pub.publish(ref, 'rfq_offer', { quote_id: 'a' }, { idempotencyKey: 'offer:1' })).toEqual({ seq: 1, duplicate: false });
    expect(await pub.publish(ref, 'rfq_offer', { quote_id: 'a' }, { idempotencyKey: 'offer:1' })).toEqual({ seq: 1, duplicate: true });
    expect(await pub.publish(ref, 'rfq_offer', { quote_id: 'b' })).toEqual({ seq: 2, duplicate: false });
  });

  it('counts rate limits on the cluster and answers 429 past the budget', async () => {
    const limiter = createLimiter(replica.ctx!, 'cluster', 2, 60);
    await consumeAll(limiter, ['ip:192.0.2.1']);
    await consumeAll(limiter, ['ip:192.0.2.1']);
    await expect(consumeAll(limiter, ['ip:192.0.2.1'])).rejects.toMatchObject({ status: 429 });
    await consumeAll(limiter, ['ip:192.0.2.2']);
  });

  it('charges a write’s IP and credential budgets in one script on the cluster; each budget refuses in turn and the ones after it are not charged', async () => {
    const prefix = env.config.REDIS_PREFIX;
    const budgets = new WriteBudgets(env.redis, prefix, 'cluster-write', { perIp: 2, perCredential: 2, windowSeconds: 60 });
    const count = async (kind: 'ip' | 'credential', bucket: string) => Number((await env.redis.get(budgets.key(kind, bucket))) ?? 0);
    const [ip, own, key] = ['ip:192.0.2.10', 'delegate:org:0xabc', 'taker_key:k1'];
    // The three counters share a slot: one master runs the script.
    expect(new Set([budgets.key('ip', ip), budgets.key('credential', own), budgets.key('credential', key)].map((k) => calculateSlot(k))).size).toBe(1);
    await budgets.charge(ip, [own, key]);
    await budgets.charge('ip:192.0.2.11', [own, 'taker_key:k2']);
    // The delegate's own budget (2) is spent: refused there, the taker key after it not charged.
    await expect(budgets.charge('ip:192.0.2.12', [own, key])).rejects.toMatchObject({ status: 429 });
    expect([await count('ip', 'ip:192.0.2.12'), await count('credential', own), await count('credential', key)]).toEqual([1, 3, 1]);
    // The taker key's budget refuses third, after the IP and another delegate were charged.
    await budgets.charge(ip, ['delegate:org:0xdef', key]);
    await expect(budgets.charge('ip:192.0.2.13', ['delegate:org:0x123', key])).rejects.toMatchObject({ status: 429 });
    expect([await count('ip', 'ip:192.0.2.13'), await count('credential', 'delegate:org:0x123'), await count('credential', key)]).toEqual([1, 1, 3]);
    // The IP's budget (2) refuses first: nothing after it is charged.
    await expect(budgets.charge(ip, ['delegate:org:0x456'])).rejects.toMatchObject({ status: 429 });
    expect([await count('ip', ip), await count('credential', 'delegate:org:0x456')]).toEqual([3, 0]);
    // And is remembered: the next write from that address is refused before Redis.
    expect(budgets.knownRefusal(ip)).toMatchObject({ status: 429 });
    // Through the API: a create with a session's bearer is charged on the cluster.
    const token = await signIn(replica.app, newWallet());
    await request(replica.app).post('/api/quote').set(bearer(token)).send(quoteBody(randomAddress(), STRATEGY_ROWS[0].legs)).expect(201);
  });

  it('charges an Explore request’s IP and credential budgets in one script on the cluster, in its route’s slot', async () => {
    const budgets = new WriteBudgets(env.redis, env.config.REDIS_PREFIX, 'getClobFills:explore', { perIp: 1, perCredential: 1, windowSeconds: 60 });
    const wallet = newWallet();
    const session = await signIn(replica.app, wallet);
    // Past both budgets (the defaults), refused for want of an Origin: the IP and the wallet were charged.
    const res = await request(replica.app).get(`/api/clob/${randomAddress()}/fills?chain_id=31337`).set(bearer(session));
    expect(res.body).toMatchObject({ code: 'origin_required' });
    const walletKey = budgets.key('credential', `wallet:${wallet.address.toLowerCase()}`);
    expect(await env.redis.get(walletKey)).toBe('1');
    expect(calculateSlot(budgets.key('ip', 'ip:127.0.0.1'))).toBe(calculateSlot(walletKey));
  });

  it('is ready when every master answers', async () => {
    const res = await request(replica.app).get('/readyz').expect(200);
    expect(JSON.stringify(res.body)).toContain('redis');
  });

  it('keeps a queue on one master: every key of the quotes queue is in one slot', async () => {
    const found: string[] = [];
    for (const node of primaryNodes(env.redis)) {
      let cursor = '0';
      do {
        const [next, keys] = await node.scan(cursor, 'MATCH', `${env.config.REDIS_PREFIX}bull:*`, 'COUNT', 1000);
        cursor = next;
        found.push(...keys);
      } while (cursor !== '0');
    }
    const quotes = found.filter((k) => k.includes(':{quotes}:'));
    expect(quotes.length).toBeGreaterThan(0);
    expect(new Set(quotes.map((k) => calculateSlot(k))).size).toBe(1);
  });
});

async function ownsSlot(node: IORedis, slot: number): Promise<boolean> {
  const myId = String(await node.call('CLUSTER', 'MYID'));
  const shards = (await node.call('CLUSTER', 'SLOTS')) as [number, number, [string, number, string]][];
  return shards.some(([from, to, master]) => slot >= from && slot <= to && master[2] === myId);
}
