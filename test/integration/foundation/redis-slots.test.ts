import calculateSlot from 'cluster-key-slot';
import { z } from 'zod';
import { consumeAll, createLimiter } from '../../../api/auth/rate-limit';
import { WriteBudgets } from '../../../api/auth/write-budgets';
import { EventPublisher, PubsubRegistrations, topics } from '../../../shared/events';
import { NonceStore } from '../../../shared/identity/nonce-store';
import { EXPLORE_QUEUE, ExploreWatchers, FeedLock, FeedOutbox } from '../../../shared/explore';
import { ORDERS_QUEUE } from '../../../shared/orders';
import { QUOTES_QUEUE } from '../../../shared/quotes';
import { EventHistory, EventKeys } from '../../../shared/platform/event-bus';
import { defineJob, type JobSpec } from '../../../shared/platform/queue';
import { bullPrefix, primaryNodes } from '../../../shared/platform/redis';
import { hashStreamToken, StreamTokens } from '../../../shared/platform/stream-tokens';
import { handles } from '../../../workers/job-binding';
import { RetryLater } from '../../../workers/retry-later';
import { randomAddress } from '../../support/fixtures';
import { buildApp, request } from '../../support/http';
import { eventually } from '../../support/events';
import { redisMonitor } from '../../support/redis-monitor';
import { createTestEnv, type TestEnv } from '../../support/test-env';
import { startWorkers } from '../../support/workers';
import { bearer, newWallet, signIn } from '../../support/wallets';

/**
 * On a Redis Cluster a script, a MULTI and a multi-key command must touch one hash slot. This
 * proves it for every one the service sends: the operations run against the real (single) Redis
 * while a MONITOR connection records each command as Redis received it, and the slots of the
 * keys each script, transaction and multi-key command was called with are computed with the
 * cluster's own algorithm (cluster-key-slot, what ioredis routes by).
 */
interface Seen {
  source: string;
  args: string[];
}

const MULTI_KEY = new Set(['MGET', 'DEL', 'UNLINK', 'EXISTS', 'TOUCH']);

const numbered = z.object({ n: z.number().int() });

function jobOn(queue: string, name: string): JobSpec<typeof numbered> {
  return defineJob({ name, queue, schema: numbered, jobId: (p) => `${name.replace(/\./g, '-')}-${p.n}`, attempts: 3, backoffMs: 10 });
}

describe('Redis keys: one cluster slot per script, transaction and multi-key command', () => {
  let env: TestEnv;
  let monitor: { close(): void } | undefined;
  const seen: Seen[] = [];

  beforeAll(async () => {
    env = await createTestEnv({ SOCKET_HISTORY_MAX_EVENTS: '50' });
    const node = primaryNodes(env.redis)[0];
    const prefix = env.config.REDIS_PREFIX;
    monitor = await redisMonitor(node.options.host ?? '127.0.0.1', node.options.port ?? 6379, ({ args, source }) => {
      if (args.some((a) => a.includes(prefix))) seen.push({ source, args: [args[0].toUpperCase(), ...args.slice(1)] });
      else if (args[0]?.toUpperCase() === 'MULTI' || args[0]?.toUpperCase() === 'EXEC') seen.push({ source, args: [args[0].toUpperCase()] });
    });
  });
  afterAll(async () => {
    monitor?.close();
    await env?.close();
  });

  it('every key a script, MULTI or multi-key command is given shares its slot, for several topics and all three queues', async () => {
    const prefix = env.config.REDIS_PREFIX;
    const pub = new EventPublisher({ redis: env.redis, config: env.config });
    const history = new EventHistory(env.redis, env.config);
    const tokens = new StreamTokens(env.redis, prefix);

    // Event publisher and reader on shared and token-named topics, with and without idempotency keys.
    const token = await tokens.mint('rfq', 60);
    const loanToken = await tokens.mint('explore_loan', 60);
    const refs = [
      topics.quotesRequests(31337),
      topics.quotesRequests(10),
      topics.rfqMaker(randomAddress()),
      topics.rfqStream(hashStreamToken(token)),
      topics.exploreLoanStream(hashStreamToken(loanToken)),
    ];
    for (const [i, ref] of refs.entries()) {
      const event = ref.kind === 'explore_loan_stream' ? 'explore_loan_event' : ref.kind === 'rfq_stream' ? 'rfq_offer' : 'rfq_request';
      await pub.publish(ref, event as never, { quote_id: `q${i}` } as never);
      await pub.publish(ref, event as never, { quote_id: `q${i}` } as never, { idempotencyKey: `k${i}` });
      await pub.publish(ref, event as never, { quote_id: `q${i}` } as never, { idempotencyKey: `k${i}` });
      expect((await history.readSince(ref.key, 0)).events).toHaveLength(2);
    }
    await tokens.revoke('rfq', token);

    // Sign-in nonces.
    const nonces = new NonceStore(env.redis, prefix);
    const issued = {
      nonce: 'abcdefgh12345678',
      domain: 'localhost:3000',
      uri: 'http://localhost:3000',
      chain_id: 1,
      statement: 's',
      version: '1',
      issued_at: new Date().toISOString(),
      expiration_time: new Date(Date.now() + 60_000).toISOString(),
    };
    await nonces.save(issued);
    expect(await nonces.find(issued.nonce)).toMatchObject({ nonce: issued.nonce });
    expect(await nonces.consume(issued)).toBe(true);
    expect(await nonces.find(issued.nonce)).toBe('used');

    // Maker registrations: register, read across chains, sweep, drop by key.
    const regs = new PubsubRegistrations(env.redis, env.config);
    const maker = randomAddress();
    await regs.register(31337, maker, 'premium', 'key-1');
    await regs.register(10, maker, 'freemium');
    expect(await regs.registeredAnywhere(maker)).toBe(true);
    expect(await regs.sweepRemovedKeys(async (ids) => ids, 60_000)).toBe(1);
    expect(await regs.tierOf(31337, maker)).toBeNull();

    // Explore watchers and the feed lock.
    const watchers = new ExploreWatchers(env.redis, prefix);
    await watchers.watch('clob', 31337, '0xAbC', 'h1', Date.now() + 60_000);
    await watchers.watch('clob', 31337, '0xAbC', 'h2', Date.now() - 1);
    expect(await watchers.count('clob', 31337, '0xabc')).toBe(1);
    expect(await new FeedLock(env.redis, prefix).with('clob:31337:0xabc', async () => 'held')).toBe('held');
    // The subject's outbox: append (with the watcher count), read from the cursor, ack.
    const outbox = new FeedOutbox(env.redis, watchers);
    const appended = await outbox.append('clob', 31337, '0xAbC', [{ block: 6, key: 'k6', event: 'explore_clob_event', payload: { n: 6 } }]);
    expect(appended.watchers).toBe(1);
    const read = await outbox.read('clob', 31337, '0xabc', 10);
    expect(read.map((r) => r.entry.key)).toEqual(['k6']);
    await outbox.ack('clob', 31337, '0xabc', read[0].id);
    expect(await outbox.read('clob', 31337, '0xabc', 10)).toEqual([]);

    // Rate limits, as the API counts them.
    const limiter = createLimiter(buildApp(env).ctx, 'slots', 2, 60);
    await consumeAll(limiter, ['ip:127.0.0.1']);
    await consumeAll(limiter, ['ip:127.0.0.1']);
    await expect(consumeAll(limiter, ['ip:127.0.0.1'])).rejects.toMatchObject({ status: 429 });
    // A write's budgets, the IP and two credential buckets in one script.
    const budgets = new WriteBudgets(env.redis, prefix, 'quote', { perIp: 5, perCredential: 1, windowSeconds: 60 });
    await budgets.charge('ip:127.0.0.1', ['delegate:org:0xabc', 'taker_key:k1']);
    await expect(budgets.charge('ip:127.0.0.1', ['delegate:org:0xabc', 'taker_key:k1'])).rejects.toMatchObject({ status: 429 });
    // An Explore request's budgets, through the gate: its IP's and its session's wallet's in one script (then 403: no Origin).
    const { app } = buildApp(env);
    const wallet = newWallet();
    const session = await signIn(app, wallet);
    await request(app).get(`/api/clob/${randomAddress()}/fills?chain_id=31337`).set(bearer(session)).expect(403);
    const explore = new WriteBudgets(env.redis, prefix, 'getClobFills:explore', { perIp: 1, perCredential: 1, windowSeconds: 60 });

    // BullMQ on the three queues: immediate, delayed, retried and moved-to-delayed jobs, processed by the worker host.
    const specs = [jobOn(QUOTES_QUEUE, 'slots.quote'), jobOn(ORDERS_QUEUE, 'slots.order'), jobOn(EXPLORE_QUEUE, 'slots.explore')];
    const done = new Map<string, number>();
    const tries = new Map<string, number>();
    const workers = startWorkers(env, {
      catalog: Object.fromEntries(specs.map((s) => [s.name, s])),
      handlers: specs.map((s) =>
        handles(s, async (p) => {
          const id = `${s.name}:${p.n}`;
          const n = (tries.get(id) ?? 0) + 1;
          tries.set(id, n);
          if (p.n === 2 && n === 1) throw new Error('transient');
          if (p.n === 3 && n === 1) throw new RetryLater(10, 'not yet');
          done.set(id, n);
        }),
      ),
    });
    try {
      for (const s of specs) {
        await env.queue.enqueueMany([1, 2, 3].map((n) => ({ spec: s, payload: { n } })));
        await env.queue.enqueue(s, { n: 4 }, { delay: 20 });
      }
      await eventually(
        async () => done.size,
        (n) => n === 12,
      );
    } finally {
      await workers.close();
    }

    // Every command above has reached the monitor once a later one has.
    const sentinel = `${prefix}sentinel`;
    await env.redis.set(sentinel, '1');
    await eventually(
      async () => seen.some((s) => s.args[1] === sentinel),
      (x) => x,
    );

    const problems: string[] = [];
    const scripts: { keys: string[] }[] = [];
    const open = new Map<string, string[]>();
    const checkOne = (what: string, keys: string[]) => {
      const slots = new Set(keys.map((k) => calculateSlot(k)));
      if (slots.size > 1) problems.push(`${what}: ${keys.map((k) => `${k} (${calculateSlot(k)})`).join(', ')}`);
    };
    for (const { source, args } of seen) {
      const [cmd] = args;
      if (source === 'lua') continue; // a script's own commands: checked through its declared keys below
      if (cmd === 'MULTI') open.set(source, []);
      else if (cmd === 'EXEC') {
        const keys = open.get(source);
        open.delete(source);
        if (keys && keys.length > 0) checkOne('MULTI', keys);
      } else {
        let keys: string[];
        if (cmd === 'EVAL' || cmd === 'EVALSHA') {
          keys = args.slice(3, 3 + Number(args[2]));
          scripts.push({ keys });
          checkOne(`${cmd} ${args[1].slice(0, 12)}`, keys);
        } else if (MULTI_KEY.has(cmd)) {
          keys = args.slice(1);
          checkOne(cmd, keys);
        } else keys = args.length > 1 ? [args[1]] : [];
        open.get(source)?.push(...keys);
      }
    }
    expect(problems).toEqual([]);

    // The check saw what it was meant to: each queue's scripts, and the publish script on every topic.
    const keys = new EventKeys(prefix);
    for (const s of specs) expect(scripts.some((x) => x.keys.some((k) => k.startsWith(`${bullPrefix(prefix, s.queue)}:`)))).toBe(true);
    for (const ref of refs) expect(scripts.some((x) => x.keys.includes(keys.seq(ref.key)) && x.keys.includes(keys.log(ref.key)))).toBe(true);
    expect(scripts.some((x) => x.keys.includes(budgets.key('ip', 'ip:127.0.0.1')) && x.keys.includes(budgets.key('credential', 'taker_key:k1')))).toBe(true);
    const walletKey = explore.key('credential', `wallet:${wallet.address.toLowerCase()}`);
    expect(scripts.some((x) => x.keys.includes(walletKey) && x.keys.some((k) => k.startsWith(explore.key('ip', ''))))).toBe(true);
    expect(seen.some(({ args }) => args[0] === 'MULTI')).toBe(true);
  });

  it('a topic’s channel and, for token topics, its stream token share the slot of its keys; queues and topics spread over slots', () => {
    const prefix = 'rfq:';
    const keys = new EventKeys(prefix);
    const tokens = new StreamTokens(null as never, prefix);
    const hash = hashStreamToken('a-stream-token-of-some-length-0123456789');
    const shared = [topics.quotesRequests(1), topics.quotesRequests(31337), topics.rfqMaker(randomAddress()), topics.rfqMaker(randomAddress())];
    const tokenNamed = [
      { ref: topics.rfqStream(hash), kind: 'rfq' as const },
      { ref: topics.exploreClobStream(hash), kind: 'explore_clob' as const },
      { ref: topics.exploreLoanStream(hash), kind: 'explore_loan' as const },
    ];
    for (const ref of [...shared, ...tokenNamed.map((t) => t.ref)]) {
      const slot = calculateSlot(keys.seq(ref.key));
      for (const k of [keys.log(ref.key), keys.once(ref.key, 'offer:1'), keys.live(ref.key)]) expect(calculateSlot(k)).toBe(slot);
      expect(keys.topicOfLive(keys.live(ref.key))).toBe(ref.key);
    }
    for (const { ref, kind } of tokenNamed) expect(calculateSlot(tokens.key(kind, hash))).toBe(calculateSlot(keys.seq(ref.key)));
    expect(new Set(shared.map((r) => calculateSlot(keys.seq(r.key)))).size).toBe(shared.length);

    // BullMQ builds a queue's keys as `<prefix>:<queue>:<suffix>`: one slot per queue, a different one for each.
    const queues = [QUOTES_QUEUE, ORDERS_QUEUE, EXPLORE_QUEUE];
    for (const q of queues) {
      const slot = calculateSlot(`${bullPrefix(prefix, q)}:${q}:wait`);
      for (const suffix of ['active', 'delayed', 'events', 'meta', 'id', 'stalled-check', 'marker', 'job-1'])
        expect(calculateSlot(`${bullPrefix(prefix, q)}:${q}:${suffix}`)).toBe(slot);
    }
    expect(new Set(queues.map((q) => calculateSlot(`${bullPrefix(prefix, q)}:${q}:wait`))).size).toBe(queues.length);
  });
});
