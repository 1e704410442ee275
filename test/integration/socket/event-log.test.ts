import { EventPublisher, PubsubRegistrations, topics, type TopicRef } from '../../../shared/events';
import { EventHistory, EventKeys, parseLiveMessage, TopicEventPublisher, type TopicKey, type TopicRules } from '../../../shared/platform/event-bus';
import { hashStreamToken, StreamTokens } from '../../../shared/platform/stream-tokens';
import { randomAddress } from '../../support/fixtures';
import { createTestEnv, type TestEnv } from '../../support/test-env';
import { waitForAsync } from './socket-harness';

describe('the event log, stream tokens and registrations on Redis', () => {
  let env: TestEnv;
  let pub: EventPublisher;
  let history: EventHistory;
  let keys: EventKeys;
  let n = 0;
  const fresh = (): TopicRef<'rfq_stream'> => topics.rfqStream(hashStreamToken(`token-number-${++n}-xxxxxxxxxxxx`));

  beforeAll(async () => {
    env = await createTestEnv({ SOCKET_HISTORY_MAX_EVENTS: '5' });
    pub = new EventPublisher({ redis: env.redis, config: env.config });
    history = new EventHistory(env.redis, env.config);
    keys = new EventKeys(env.config.REDIS_PREFIX);
  });
  afterAll(() => env.close());

  it('numbers each topic on its own, from 1, and stores {seq, ...payload}', async () => {
    const a = fresh();
    const b = fresh();
    expect((await pub.publish(a, 'rfq_offer', { quote_id: 'x' })).seq).toBe(1);
    expect((await pub.publish(a, 'rfq_offer', {} as never)).seq).toBe(2);
    expect((await pub.publish(b, 'rfq_result', { quote_id: 'y' })).seq).toBe(1);
    const read = await history.readSince(a.key, 0);
    expect(read).toMatchObject({ head: 2, recovered: true });
    expect(read.events.map((e) => [e.seq, e.event, JSON.parse(e.data)])).toEqual([
      [1, 'rfq_offer', { seq: 1, quote_id: 'x' }],
      [2, 'rfq_offer', { seq: 2 }],
    ]);
  });

  it('announces each event live as seq, event, time and data', async () => {
    const topic = fresh();
    const sub = env.redis.duplicate();
    try {
      const got = new Promise<string>((resolve) => sub.on('message', (_c, m: string) => resolve(m)));
      await sub.subscribe(keys.live(topic.key));
      await pub.publish(topic, 'rfq_request', { quote_id: 'q', chain_id: 5 });
      const ev = parseLiveMessage(await got);
      expect(ev).toEqual({ seq: 1, event: 'rfq_request', publishedAt: expect.any(Number), data: '{"seq":1,"quote_id":"q","chain_id":5}' });
      expect(Math.abs(ev!.publishedAt - Date.now())).toBeLessThan(5000);
    } finally {
      sub.disconnect();
    }
  });

  it('publishes an idempotency key once and answers the first seq again', async () => {
    const topic = fresh();
    expect(await pub.publish(topic, 'rfq_offer', { quote_id: 'a' }, { idempotencyKey: 'offer:1' })).toEqual({ seq: 1, duplicate: false });
    expect(await pub.publish(topic, 'rfq_offer', { quote_id: 'a' }, { idempotencyKey: 'offer:1' })).toEqual({ seq: 1, duplicate: true });
    expect(await pub.publish(topic, 'rfq_offer', { quote_id: 'b' }, { idempotencyKey: 'offer:2' })).toEqual({ seq: 2, duplicate: false });
    expect((await history.readSince(topic.key, 0)).events).toHaveLength(2);
  });

  it('keeps the last N events; a read from before them is not recovered', async () => {
    const topic = fresh();
    for (let i = 0; i < 12; i++) await pub.publish(topic, 'rfq_offer', { quote_id: String(i) });
    expect(await env.redis.xlen(keys.log(topic.key))).toBe(5);
    expect(await history.readSince(topic.key, 6)).toEqual({ head: 12, recovered: false, events: [] });
    const tail = await history.readSince(topic.key, 7);
    expect(tail.recovered).toBe(true);
    expect(tail.events.map((e) => e.seq)).toEqual([8, 9, 10, 11, 12]);
    expect(await history.readSince(topic.key, 12)).toEqual({ head: 12, recovered: true, events: [] });
  });

  it('never hands out a seq twice, even when the counter was lost', async () => {
    const topic = fresh();
    for (let i = 0; i < 3; i++) await pub.publish(topic, 'rfq_offer', { quote_id: 'q' });
    await env.redis.del(keys.seq(topic.key));
    expect((await pub.publish(topic, 'rfq_offer', { quote_id: 'q' })).seq).toBe(4);
  });

  it('refuses what would break the contract with clients', async () => {
    const topic = fresh();
    await expect(pub.publish(topic, 'rfq_offer', { quote_id: 'q', seq: 3 } as never)).rejects.toThrow(/must not carry seq/);
    await expect(pub.publish(topic, 'explore_clob_event' as never, { quote_id: 'q' } as never)).rejects.toThrow(/does not belong on a rfq_stream topic/);
    await expect(pub.publish(topic, 'rfq_offer', [] as never)).rejects.toThrow(/JSON object/);
    await expect(pub.publish(topic, 'rfq_offer', { quote_id: 'x'.repeat(300 * 1024) })).rejects.toThrow(/larger than/);
    await expect(pub.publish(topic, 'rfq_offer', { quote_id: 'q' }, { idempotencyKey: 'has space' })).rejects.toThrow(/idempotencyKey/);
    expect(await history.head(topic.key)).toBe(0);
  });

  it('serves any topic table: the platform publisher asks its rules, not ours', async () => {
    type Catalog = { ping: { pong: { n: number } } };
    const asked: string[] = [];
    const rules: TopicRules = {
      carries: (kind, event) => {
        asked.push(`${kind}/${event}`);
        return kind === 'ping' && event === 'pong';
      },
      streamTokenOf: () => null,
    };
    const foreign = new TopicEventPublisher<Catalog>({ redis: env.redis, config: env.config, rules });
    const topic = { kind: 'ping' as const, key: `ping:${++n}` as TopicKey };
    expect(await foreign.publish(topic, 'pong', { n: 1 })).toEqual({ seq: 1, duplicate: false });
    await expect(foreign.publish(topic, 'ping' as never, { n: 2 } as never)).rejects.toThrow(/does not belong on a ping topic/);
    expect(asked).toEqual(['ping/pong', 'ping/ping']);
    expect((await history.readSince(topic.key, 0)).events.map((e) => JSON.parse(e.data))).toEqual([{ seq: 1, n: 1 }]);
    expect(await env.redis.pttl(keys.seq(topic.key))).toBeGreaterThan(6 * 86400 * 1000);
  });

  describe('how long a topic keeps its seq and history', () => {
    const grace = () => env.config.SOCKET_TOKEN_TOPIC_GRACE_SECONDS * 1000;

    it("a token topic lives as long as its token plus a grace, not the shared topics' seven days", async () => {
      const token = await new StreamTokens(env.redis, env.config.REDIS_PREFIX).mint('rfq', 120);
      const topic = topics.rfqStream(hashStreamToken(token));
      await pub.publish(topic, 'rfq_request', { quote_id: 'q', chain_id: 1 });
      const seqTtl = await env.redis.pttl(keys.seq(topic.key));
      const logTtl = await env.redis.pttl(keys.log(topic.key));
      expect(seqTtl).toBeGreaterThan(grace());
      expect(seqTtl).toBeLessThanOrEqual(120_000 + grace());
      expect(logTtl).toBeGreaterThan(0);
      expect(logTtl).toBeLessThanOrEqual(seqTtl);

      const shared = topics.quotesRequests(77);
      await pub.publish(shared, 'rfq_request', { quote_id: 'q', chain_id: 77 });
      expect(await env.redis.pttl(keys.seq(shared.key))).toBeGreaterThan(6 * 86400 * 1000);
    });

    it('an explore stream is tied to its own token the same way', async () => {
      const token = await new StreamTokens(env.redis, env.config.REDIS_PREFIX).mint('explore_clob', 30);
      const topic = topics.exploreClobStream(hashStreamToken(token));
      await pub.publish(topic, 'explore_clob_event', { chain_id: 1, clob: '0x1', event: 'OrderPlaced' });
      const seqTtl = await env.redis.pttl(keys.seq(topic.key));
      expect(seqTtl).toBeGreaterThan(grace());
      expect(seqTtl).toBeLessThanOrEqual(30_000 + grace());
    });

    it("a signed token's topic (no record in Redis) lives until the token's end the publisher passes, plus the grace", async () => {
      const topic = { ...fresh(), tokenEndsAt: Date.now() + 120_000 };
      await pub.publish(topic, 'rfq_request', { quote_id: 'q', chain_id: 1 });
      const seqTtl = await env.redis.pttl(keys.seq(topic.key));
      expect(seqTtl).toBeGreaterThan(grace());
      expect(seqTtl).toBeLessThanOrEqual(120_000 + grace());
      expect(await env.redis.pttl(keys.log(topic.key))).toBeLessThanOrEqual(seqTtl);
      // Past its end, a publish leaves only the grace: a dead token's topic never holds state for long.
      const ended = { ...fresh(), tokenEndsAt: Date.now() - 1 };
      await pub.publish(ended, 'rfq_result', { quote_id: 'late' });
      const endedTtl = await env.redis.pttl(keys.seq(ended.key));
      expect(endedTtl).toBeGreaterThan(0);
      expect(endedTtl).toBeLessThanOrEqual(grace());
    });

    it('a topic whose token is gone (expired or revoked) keeps only the grace', async () => {
      const topic = fresh();
      await pub.publish(topic, 'rfq_result', { quote_id: 'late' });
      const seqTtl = await env.redis.pttl(keys.seq(topic.key));
      expect(seqTtl).toBeGreaterThan(0);
      expect(seqTtl).toBeLessThanOrEqual(grace());
    });
  });

  describe('StreamTokens', () => {
    let tokens: StreamTokens;
    beforeAll(() => {
      tokens = new StreamTokens(env.redis, env.config.REDIS_PREFIX);
    });

    it('mints 256-bit base64url tokens that verify for their kind only, stored as a sha-256', async () => {
      const before = Date.now();
      const token = await tokens.mint('explore_loan', 120, { chain_id: 1 });
      expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      const rec = await tokens.verify('explore_loan', token);
      expect(rec).toEqual({ kind: 'explore_loan', expiresAt: expect.any(Number), meta: { chain_id: 1 } });
      expect(rec!.expiresAt).toBeGreaterThanOrEqual(before + 120_000);
      expect(rec!.expiresAt).toBeLessThanOrEqual(Date.now() + 120_000);
      expect(await tokens.verify('explore_clob', token)).toBeNull();
      expect(await tokens.verify('explore_loan', `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`)).toBeNull();
      expect(await tokens.verify('explore_loan', 'bad token!')).toBeNull();

      const stored = await env.redis.keys(`${env.config.REDIS_PREFIX}stream-token:*`);
      expect(stored).toContain(`${env.config.REDIS_PREFIX}stream-token:explore_loan:{${hashStreamToken(token)}}`);
      for (const k of stored) {
        expect(k).not.toContain(token);
        expect(await env.redis.get(k)).not.toContain(token);
      }
    });

    it('stops verifying a token once it expires or is revoked', async () => {
      const short = await tokens.mint('rfq', 1);
      expect(await tokens.verify('rfq', short)).not.toBeNull();
      await waitForAsync(async () => (await tokens.verify('rfq', short)) === null, 5000, 'the token to expire');
      expect(await tokens.verify('rfq', short)).toBeNull();

      const revoked = await tokens.mint('rfq', 60);
      expect(await tokens.revoke('rfq', revoked)).toBe(true);
      expect(await tokens.verify('rfq', revoked)).toBeNull();
      expect(await tokens.revoke('rfq', revoked)).toBe(false);
    });
  });

  describe('PubsubRegistrations', () => {
    it('keeps the best tier per chain, lists who is registered, and forgets lapsed registrations', async () => {
      const regs = new PubsubRegistrations(env.redis, env.config);
      const [maker, wallet, lapsed] = [randomAddress(), randomAddress(), randomAddress()];
      await regs.register(10, maker, 'premium');
      await regs.register(10, maker.toLowerCase(), 'freemium');
      await regs.register(10, wallet, 'freemium');
      expect(await regs.tierOf(10, maker)).toBe('premium');
      expect(await regs.tierOf(10, wallet.toLowerCase())).toBe('freemium');
      expect(await regs.tierOf(11, wallet)).toBeNull();
      expect((await regs.registered(10)).sort()).toEqual([maker, wallet].sort());
      expect(await regs.registered(10, 'premium')).toEqual([maker]);

      await env.redis.zadd(`${env.config.REDIS_PREFIX}pubsub:reg:{10}:premium`, Date.now() - 1, lapsed);
      expect(await regs.tierOf(10, lapsed)).toBeNull();
      expect(await regs.registered(10, 'premium')).toEqual([maker]);
    });
  });
});
