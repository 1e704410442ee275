import { randomInt, randomUUID } from 'node:crypto';
import type { Express } from 'express';
import supertest from 'supertest';
import type { PrivateKeyAccount } from 'viem/accounts';
import { optionPairAbi } from '../../shared/chain/abis';
import type { IssuedNonce } from '../../shared/identity';
import { orderExpireJob, ORDERS_QUEUE } from '../../shared/orders';
import { orderIntentFromJson } from '../../shared/protocol';
import { scheduleOrderJobs } from '../../workers';
import { sweepQuotes } from '../../workers/quotes/quote-sweeper';
import { openHarness, runIndexer, waitFor, type Harness } from '../integration/indexer/harness';
import { disconnect, join, phoenixSocket, startReplica, type Replica } from '../integration/socket/socket-harness';
import { captureLogs } from '../integration/workers/log-capture';
import { chainDutchBody } from '../support/dutch';
import { randomAddress } from '../support/fixtures';
import { buildApp, request } from '../support/http';
import { orderBody } from '../support/orders';
import { intents } from '../support/quotes';
import { bearer, newWallet, siweMessage } from '../support/wallets';
import { startWorkers, type Workers } from '../support/workers';
import { census, grown, redisKeys, rowCounts, type Family } from './free-state-census';

/**
 * Issue #38, finding 4, attacked on a real stack (a Hardhat node with the reference contracts,
 * the indexer, the workers, the API over HTTP and a socket replica): before the fix every
 * anonymous `POST /api/orders` left a delayed BullMQ job in Redis until the order's expiry (up to
 * a year) and a row in Postgres for good, so one IP could fill Redis at the write limit's pace.
 *
 * - A burst of anonymous order records leaves no job at all.
 * - The per-owner and per-IP caps of unconfirmed records evict the oldest.
 * - A census after a burst of every kind of anonymous request: every Redis key under the test's
 *   prefix belongs to a family docs/SECURITY.md lists, within its count and lifetime, and every
 *   table that grew is listed, within its bound.
 * - The records sweeper writes down expiries (clients read them at their time already) and deletes
 *   records nobody confirmed after ORDER_UNCONFIRMED_RETENTION, keeping what the chain placed.
 */
const ORIGIN = 'http://localhost:3000';
const PER_OWNER = 5;
const PER_IP = 8;
const RETENTION_SECONDS = 3;
const QUOTE_LIMIT = 4;
const NONCE_LIMIT = 5;
const STREAMS_PER_IP = 2;
const OPS_FAILURES = 3;
/** The chain account that places an order on chain (funded by Hardhat). */
const PLACER = 6;

let h: Harness;
let app: Express;
let ctx: ReturnType<typeof buildApp>['ctx'];
let workers: Workers;
let socket: Replica;
let ix: Awaited<ReturnType<typeof runIndexer>>;
const logs = captureLogs();

beforeAll(async () => {
  h = await openHarness({
    TRUST_PROXY_HOPS: '1',
    CORS_ORIGINS: ORIGIN,
    OPS_DASHBOARD_TOKEN: 'the-operator-token-of-this-free-state-test',
    OPS_DASHBOARD_FAILURES_PER_IP: String(OPS_FAILURES),
    ORDER_UNCONFIRMED_PER_OWNER: String(PER_OWNER),
    ORDER_UNCONFIRMED_PER_IP: String(PER_IP),
    ORDER_UNCONFIRMED_RETENTION: String(RETENTION_SECONDS),
    // The sweepers are scheduled in the last test only (scheduleOrderJobs): until then nothing writes an expiry down or deletes a record.
    ORDER_SWEEP_INTERVAL_MS: '200',
    ORDER_RECORDS_SWEEP_INTERVAL_MS: '200',
    QUOTE_RATE_LIMIT_PER_IP: String(QUOTE_LIMIT),
    NONCE_RATE_LIMIT: String(NONCE_LIMIT),
    EXPLORE_STREAMS_PER_IP: String(STREAMS_PER_IP),
  });
  await h.register();
  ({ app, ctx } = buildApp(h.env));
  ix = await runIndexer(h.env);
  workers = startWorkers(h.env, { logger: logs.logger });
  socket = await startReplica(h.env);
}, 240_000);

afterAll(async () => {
  await socket?.close();
  await workers?.close(true);
  await ix?.stop();
  await h?.close();
});

const from = (ip: string) => ({ 'X-Forwarded-For': ip });
const pair = () => h.chain.addresses.pair;
const record = (ip: string, owner: string, opts: Parameters<typeof orderBody>[1] = {}) =>
  request(app)
    .post('/api/orders')
    .set(from(ip))
    .send(orderBody(owner, { pair: pair(), chainId: h.chain.chainId, ...opts }));
const orderStatus = async (id: string) => (await request(app).get(`/api/orders/${id}`)).status;
const ordersQueue = () => h.env.queue.queue(ORDERS_QUEUE);

/** Signs a wallet (a fresh one by default) in from `ip`, with a nonce fetched from there: a session costs an attacker nothing. */
async function freeSession(ip: string, nonce?: IssuedNonce): Promise<{ wallet: PrivateKeyAccount; token: string }> {
  const wallet = newWallet();
  const n = nonce ?? ((await request(app).get('/api/login/nonce').set(from(ip)).expect(200)).body as IssuedNonce);
  const message = siweMessage(n, wallet.address);
  const res = await request(app)
    .post('/api/login')
    .set(from(ip))
    .send({ message, signature: await wallet.signMessage({ message }) })
    .expect(200);
  return { wallet, token: res.body.token as string };
}

describe('attack: a burst of every kind of anonymous request, then a census of what it left', () => {
  it('every Redis key is of a family docs/SECURITY.md lists, within its count and lifetime; every table that grew is listed, within its bound', async () => {
    const ips = ['198.51.100.1', '198.51.100.2', '198.51.100.3'];
    const victim = randomAddress();
    const before = await rowCounts(h.env.db);
    const n = { quotes: 0, dutch: 0, quotesRefused: 0, orders: 0, nonces: 0, logins: 0, streams: 0, streamsRefused: 0, wallets: 0, opsRefused: 0 };
    let longestWindow = 0;
    const tokens: { quote: string[]; explore: string[] } = { quote: [], explore: [] };

    for (const ip of ips) {
      // Quotes, a Dutch one first (anyone may sign a request with a wallet of its own), past the per-IP limit.
      for (let i = 0; i < QUOTE_LIMIT + 2; i++) {
        const body =
          i === 0
            ? await chainDutchBody(h.chain, newWallet())
            : {
                chain_id: h.chain.chainId,
                taker_address: randomAddress(),
                polarity: 'b_is_buy',
                expires_in: 30,
                intents: intents([{ type: 'call', structure: 0, strike: 3000n }], { pair: pair(), expiry: (await h.chain.now()) + 86400 }),
              };
        const res = await request(app).post('/api/quote').set(from(ip)).set('Idempotency-Key', randomUUID()).send(body);
        if (res.status === 429) {
          n.quotesRefused++;
          continue;
        }
        expect(res.status).toBe(201);
        tokens.quote.push(res.body.stream_token);
        if (i === 0) {
          n.dutch++;
          const r = (body as { dutch_request: { auction_end: number; dutch_premium: { auction_start: number } } }).dutch_request;
          longestWindow = Math.max(longestWindow, r.auction_end - r.dutch_premium.auction_start);
        } else {
          n.quotes++;
          longestWindow = Math.max(longestWindow, 30);
        }
      }
      // Order records for strangers' wallets, past the per-IP cap, and for one victim's, past the per-owner cap.
      for (let i = 0; i < PER_IP + 2; i++) {
        expect((await record(ip, randomAddress())).status).toBe(201);
        n.orders++;
      }
      for (let i = 0; i < 3; i++) {
        expect((await record(ip, victim)).status).toBe(201);
        n.orders++;
      }
      // Sign-in nonces past the per-IP limit; two fresh wallets sign in with two of them.
      const issued: IssuedNonce[] = [];
      for (let i = 0; i < NONCE_LIMIT + 2; i++) {
        const res = await request(app).get('/api/login/nonce').set(from(ip));
        if (res.status === 200) issued.push(res.body as IssuedNonce);
        else expect(res.status).toBe(429);
      }
      expect(issued).toHaveLength(NONCE_LIMIT);
      n.nonces += issued.length;
      const sessions = [await freeSession(ip, issued[0]), await freeSession(ip, issued[1])];
      n.logins += 2;
      // With a free session: Explore streams past the per-IP cap, and freemium registrations.
      for (let i = 0; i < STREAMS_PER_IP + 1; i++) {
        const res = await request(app)
          .post(`/api/explore/clobs/${pair()}/stream`)
          .set(from(ip))
          .set({ ...bearer(sessions[0].token), Origin: ORIGIN })
          .send({ chain_id: h.chain.chainId });
        if (res.status === 429) {
          n.streamsRefused++;
          continue;
        }
        expect(res.status).toBe(201);
        tokens.explore.push(res.body.topic);
        n.streams++;
      }
      for (const s of sessions) {
        await request(app).post('/api/pubsub/freemium').set(from(ip)).set(bearer(s.token)).send({ chain_id: h.chain.chainId }).expect(200);
        n.wallets++;
      }
      // Wrong operator tokens, each a new one, past the per-IP budget.
      for (let i = 0; i < OPS_FAILURES + 2; i++) {
        const res = await supertest(app)
          .get('/ops/queues')
          .set(from(ip))
          .set(bearer(`wrong-token-${ip}-${i}-${'z'.repeat(24)}`));
        if (res.status === 429) n.opsRefused++;
        else expect(res.status).toBe(401);
      }
    }
    // Made-up chain ids: refused, and not remembered by the process (its chain directory keeps registered chains only).
    for (let i = 0; i < 20; i++) {
      const chainId = 1_000_000 + randomInt(1_000_000_000);
      const res = await request(app)
        .post('/api/orders')
        .set(from(ips[i % ips.length]))
        .send({ ...orderBody(randomAddress(), { pair: pair() }), chain_id: chainId });
      expect(res.status).toBe(400);
    }
    expect(ctx.services.pairs.size).toBeLessThanOrEqual(1);
    // Sockets: anyone may connect and join a topic whose token it holds.
    const client = phoenixSocket(socket.url);
    try {
      for (const topic of [`rfq_stream:${tokens.quote[0]}`, tokens.explore[0]]) expect((await join(client, topic)).reply.status).toBe('ok');

      expect(n).toMatchObject({ quotesRefused: 2 * ips.length, streamsRefused: ips.length, opsRefused: 2 * ips.length });
      const quotes = n.quotes + n.dutch;
      expect(quotes).toBe(QUOTE_LIMIT * ips.length);

      // Redis: every key of a listed family, within its bounds (docs/SECURITY.md, "State an anonymous caller can create").
      const c = h.env.config;
      const quoteTokenLife = longestWindow + c.QUOTE_STREAM_GRACE_SECONDS;
      const families: Family[] = [
        {
          name: 'queue bookkeeping',
          pattern:
            /^bull:\{(\w+)\}:\1:(meta|events|id|completed|failed|delayed|wait|active|paused|marker|stalled-check|stalled|prioritized|pc|limiter|repeat)$/,
          max: 3 * 16,
          ttlMaxSeconds: null,
        },
        { name: 'job locks', pattern: /^bull:\{\w+\}:\w+:.+:lock$/, max: 3 * 4, ttlMaxSeconds: 30 },
        {
          name: 'quote jobs',
          pattern: /^bull:\{quotes\}:quotes:(quote-announce|quote-expire|dutch-announce|dutch-award)\.[0-9a-f-]{36}$/,
          max: 2 * n.quotes + 3 * n.dutch,
          ttlMaxSeconds: null,
        },
        { name: 'explore stream jobs', pattern: /^bull:\{explore\}:explore:explore-open\.[0-9a-f]+$/, max: n.streams, ttlMaxSeconds: null },
        { name: 'stream tokens, quotes', pattern: /^stream-token:rfq:\{[^}]+\}$/, max: quotes, ttlMaxSeconds: quoteTokenLife },
        { name: 'stream tokens, explore', pattern: /^stream-token:explore_clob:\{[^}]+\}$/, max: n.streams, ttlMaxSeconds: c.EXPLORE_STREAM_TTL_SECONDS },
        {
          name: 'token topic counters',
          pattern: /^ev:seq:(rfq_stream|explore_clob_stream):#\{[^}]+\}$/,
          max: quotes + n.streams,
          ttlMaxSeconds: Math.max(quoteTokenLife, c.EXPLORE_STREAM_TTL_SECONDS) + c.SOCKET_TOKEN_TOPIC_GRACE_SECONDS,
        },
        {
          name: 'token topic histories',
          pattern: /^ev:log:(rfq_stream|explore_clob_stream):#\{[^}]+\}$/,
          max: quotes + n.streams,
          ttlMaxSeconds: c.SOCKET_HISTORY_MAX_AGE_SECONDS,
        },
        {
          name: 'relay anchors',
          pattern: /^ev:relay:explore_clob_stream:#\{[^}]+\}$/,
          max: n.streams,
          ttlMaxSeconds: c.EXPLORE_STREAM_TTL_SECONDS + c.SOCKET_TOKEN_TOPIC_GRACE_SECONDS,
        },
        // Per quote: its request on the feed and its stream, twice for a Dutch quote (competing, open), and its result; per stream: its snapshot.
        { name: 'publish idempotency', pattern: /^ev:once:.+$/, max: 3 * n.quotes + 5 * n.dutch + n.streams, ttlMaxSeconds: c.SOCKET_HISTORY_MAX_AGE_SECONDS },
        // The request feed of the chain and the CLOB's Explore feed: per chain and per CLOB, not per caller.
        { name: 'shared topics', pattern: /^ev:(seq|log):\{[^}]+\}$/, max: 2 * 2, ttlMaxSeconds: c.SOCKET_SEQ_TTL_SECONDS },
        {
          name: 'explore stream caps',
          pattern: /^explore:live-streams:(ip|wallet|subject):\{[^}]+\}$/,
          max: ips.length + n.logins + 1,
          ttlMaxSeconds: c.EXPLORE_STREAM_TTL_SECONDS,
        },
        { name: 'explore watchers', pattern: /^explore:clob:watchers:\{[^}]+\}:(tokens|pending|outbox|cursor|floor)$/, max: 5, ttlMaxSeconds: 24 * 3600 },
        { name: 'pubsub registrations', pattern: /^pubsub:(chains|reg:\{[^}]+\}:freemium)$/, max: 2, ttlMaxSeconds: c.PUBSUB_REGISTRATION_TTL_SECONDS },
        // The socket replicas' turn at the removed-key sweep: one lock, whenever a recheck ran during the burst.
        { name: 'removed-key sweep turn', pattern: /^pubsub:sweep$/, max: 1, ttlMaxSeconds: Math.ceil(c.SOCKET_KEY_RECHECK_INTERVAL_MS / 1000) },
        { name: 'sign-in nonces', pattern: /^siwe:nonce:\{[^}]+\}$/, max: n.nonces - n.logins, ttlMaxSeconds: c.SIWE_NONCE_TTL_SECONDS },
        { name: 'used sign-in nonces', pattern: /^siwe:used:\{[^}]+\}$/, max: n.logins, ttlMaxSeconds: c.SIWE_NONCE_TTL_SECONDS },
        // One window per limit and bucket: per IP (quote, write, nonce, login, Explore, operator), per wallet (write, Explore), per wrong operator token.
        {
          name: 'rate-limit windows',
          pattern: /^rl:.+$/,
          max: 6 * ips.length + 2 * n.logins + OPS_FAILURES * ips.length,
          ttlMaxSeconds: Math.max(
            c.QUOTE_RATE_WINDOW_SECONDS,
            c.WRITE_RATE_WINDOW_SECONDS,
            c.AUTH_RATE_WINDOW_SECONDS,
            c.EXPLORE_RATE_WINDOW_SECONDS,
            c.OPS_DASHBOARD_FAILURE_WINDOW_SECONDS,
          ),
        },
      ];
      const report = census(await redisKeys(h.env.redis, c.REDIS_PREFIX), families);
      expect(report.unknown).toEqual([]);
      expect(report.breaches).toEqual([]);
      // No order record left a job: the orders queue holds its bookkeeping and nothing else.
      expect(report.counts['quote jobs']).toBeGreaterThan(0);
      expect(Object.values(await ordersQueue().getJobCounts()).every((x) => x === 0)).toBe(true);
      expect(await h.env.redis.zcard(`${c.REDIS_PREFIX}pubsub:reg:{${h.chain.chainId}}:freemium`)).toBeLessThanOrEqual(n.wallets);

      // Postgres: only these tables grew, each within its bound.
      const rows = grown(before, await rowCounts(h.env.db));
      expect(Object.keys(rows).sort()).toEqual(['idempotency_keys', 'orders', 'pubsub_registrations', 'quote_legs', 'quotes']);
      expect(rows.quotes).toBe(quotes);
      expect(rows.quote_legs).toBeLessThanOrEqual(8 * quotes);
      expect(rows.idempotency_keys).toBeLessThanOrEqual(quotes);
      expect(rows.pubsub_registrations).toBeLessThanOrEqual(n.wallets);
      expect(rows.orders).toBeLessThanOrEqual(PER_IP * ips.length);
      expect(n.orders).toBeGreaterThan(PER_IP * ips.length);
      const perIp: { n: number }[] = await h.env.db.query(`SELECT count(*)::int AS n FROM orders WHERE recorder_ip IS NOT NULL GROUP BY recorder_ip`);
      expect(Math.max(...perIp.map((r) => r.n))).toBe(PER_IP);
      const [{ n: victims }] = await h.env.db.query(`SELECT count(*)::int AS n FROM orders WHERE owner_address = $1`, [victim]);
      expect(victims).toBe(PER_OWNER);
    } finally {
      await disconnect(client);
    }
  }, 240_000);
});

describe("a free session's freemium registration", () => {
  it('leaves no row once it lapsed: the quote sweep forgets the Postgres copy (before: kept for good)', async () => {
    const { token, wallet } = await freeSession('198.51.100.77');
    await request(app).post('/api/pubsub/freemium').set(from('198.51.100.77')).set(bearer(token)).send({ chain_id: h.chain.chainId }).expect(200);
    const rows = () => h.env.db.query(`SELECT lapses_at FROM pubsub_registrations WHERE address = $1`, [wallet.address]) as Promise<{ lapses_at: Date }[]>;
    expect(await rows()).toHaveLength(1);
    // Its PUBSUB_REGISTRATION_TTL_SECONDS over (a month by default: the row is moved to its lapse rather than waited for).
    await h.env.db.query(`UPDATE pubsub_registrations SET lapses_at = now() - interval '1 second' WHERE address = $1`, [wallet.address]);
    await sweepQuotes(workers.ctx);
    expect(await rows()).toEqual([]);
  });
});

describe('attack: a burst of anonymous order records', () => {
  it('leaves no job: each record is a row, and the orders queue holds nothing (before: one delayed job per record until its expiry)', async () => {
    const ips = ['203.0.113.1', '203.0.113.2', '203.0.113.3', '203.0.113.4', '203.0.113.5'];
    const keysBefore = (await redisKeys(h.env.redis, h.env.config.REDIS_PREFIX)).filter((k) => k.key.startsWith('bull:{orders}')).map((k) => k.key);
    // Weeks away (before the fix, each record's job waited that long in Redis).
    const far = Math.floor(Date.now() / 1000) + 25 * 86400;
    const answers = await Promise.all(ips.flatMap((ip) => Array.from({ length: PER_IP - 2 }, () => record(ip, randomAddress(), { intentExpiry: far }))));
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 201));
    for (const a of answers) expect(a.body).toMatchObject({ state: 'open', placement: 'unconfirmed', expires_at: new Date(far * 1000).toISOString() });
    const ids = answers.map((a) => a.body.id as string);
    const [{ n }] = await h.env.db.query(`SELECT count(*)::int AS n FROM orders WHERE id = ANY($1::uuid[])`, [ids]);
    expect(n).toBe(ids.length);
    expect(Object.values(await ordersQueue().getJobCounts()).every((x) => x === 0)).toBe(true);
    for (const id of ids) expect(await ordersQueue().getJob(`order-expire.${id}`)).toBeUndefined();
    const keysAfter = (await redisKeys(h.env.redis, h.env.config.REDIS_PREFIX)).filter((k) => k.key.startsWith('bull:{orders}')).map((k) => k.key);
    expect(keysAfter.filter((k) => !keysBefore.includes(k))).toEqual([]);
  });
});

describe('attack: flooding one wallet, or from one IP, with records', () => {
  it('a wallet holds at most ORDER_UNCONFIRMED_PER_OWNER records it did not make: the oldest go first, its own records stay', async () => {
    const { wallet: owner, token } = await freeSession('192.0.2.1');
    const own = (
      await request(app)
        .post('/api/orders')
        .set(from('192.0.2.1'))
        .set(bearer(token))
        .send(orderBody(owner.address, { pair: pair(), chainId: h.chain.chainId }))
        .expect(201)
    ).body;
    expect(own.placement).toBe('recorded_by_owner');
    // The attacker, from a new IP each time (so no per-IP cap is reached), records in the wallet's name.
    const flood: string[] = [];
    for (let i = 0; i < PER_OWNER + 3; i++) flood.push((await record(`192.0.2.${10 + i}`, owner.address).expect(201)).body.id);
    for (const id of flood.slice(0, 3)) expect(await orderStatus(id)).toBe(404);
    for (const id of flood.slice(3)) expect((await request(app).get(`/api/orders/${id}`).expect(200)).body).toMatchObject({ placement: 'unconfirmed' });
    expect((await request(app).get(`/api/orders/${own.id}`).expect(200)).body).toMatchObject({ placement: 'recorded_by_owner', state: 'open' });
    const [{ n }] = await h.env.db.query(`SELECT count(*)::int AS n FROM orders WHERE owner_address = $1 AND NOT recorded_by_owner`, [owner.address]);
    expect(n).toBe(PER_OWNER);
  });

  it('an IP holds at most ORDER_UNCONFIRMED_PER_IP records, an IPv6 /64 counting as one IP: the oldest go first, other IPs keep theirs', async () => {
    const other = (await record('192.0.2.200', randomAddress()).expect(201)).body.id as string;
    // Two addresses of one /64: one subscriber, one bucket.
    const sameSubnet = ['2001:db8:38:4::1', '2001:db8:38:4:ffff:ffff:ffff:fffe'];
    const flood: string[] = [];
    for (let i = 0; i < PER_IP + 3; i++) flood.push((await record(sameSubnet[i % 2], randomAddress()).expect(201)).body.id);
    for (const id of flood.slice(0, 3)) expect(await orderStatus(id)).toBe(404);
    for (const id of flood.slice(3)) expect(await orderStatus(id)).toBe(200);
    expect(await orderStatus(other)).toBe(200);
    // The IP is kept as a hash of its bucket, not in clear.
    const stored: { recorder_ip: string }[] = await h.env.db.query(`SELECT DISTINCT recorder_ip FROM orders WHERE id = ANY($1::uuid[])`, [flood.slice(3)]);
    expect(stored).toHaveLength(1);
    expect(stored[0].recorder_ip).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('the order records sweeper', () => {
  it('records read expired at their time with no job; the sweeper writes that down and deletes what nobody confirmed after ORDER_UNCONFIRMED_RETENTION, keeping what the chain placed', async () => {
    // Every deletion is recorded with the row as it was and the database's clock: what was deleted, when, and in which state.
    await h.env.db.query(
      `CREATE TABLE test_deleted_orders AS SELECT id, state, created_at, closed_at, expires_at, recorded_by_owner, now() AS deleted_at FROM orders WHERE false`,
    );
    await h.env.db.query(`
      CREATE FUNCTION test_log_deleted_order() RETURNS trigger AS $$
      BEGIN
        INSERT INTO test_deleted_orders VALUES (OLD.id, OLD.state, OLD.created_at, OLD.closed_at, OLD.expires_at, OLD.recorded_by_owner, clock_timestamp());
        RETURN OLD;
      END $$ LANGUAGE plpgsql`);
    await h.env.db.query(`CREATE TRIGGER test_deleted_orders BEFORE DELETE ON orders FOR EACH ROW EXECUTE FUNCTION test_log_deleted_order()`);
    const ip = '100.64.0.1';
    // A short expiry, taken just before each record is sent: the sign-in before them may take
    // seconds on a busy machine, and an expiry already past is refused (400).
    const soon = () => Math.floor(Date.now() / 1000) + 3;
    const { wallet: owner, token } = await freeSession(ip);
    const own = (opts: Parameters<typeof orderBody>[1]) =>
      request(app)
        .post('/api/orders')
        .set(from(ip))
        .set(bearer(token))
        .send(orderBody(owner.address, { pair: pair(), chainId: h.chain.chainId, ...opts }))
        .expect(201);

    const stranger = (await record(ip, randomAddress(), { intentExpiry: soon() }).expect(201)).body;
    const ownShort = (await own({ intentExpiry: soon() })).body;
    const ownOpen = (await own({})).body;
    // A record a stranger made, which its owner then placed on chain: the chain confirmed it.
    const placer = h.chain.accounts[PLACER].address;
    const placed = (await record(ip, placer, { now: await h.chain.now() }).expect(201)).body;
    await h.chain.send(PLACER, pair(), optionPairAbi, 'placeIntent', [orderIntentFromJson(placed)]);
    await waitFor(
      'placement indexed',
      async () => (await request(app).get(`/api/orders/${placed.id}`).expect(200)).body,
      (o) => o.placement === 'placed',
    );

    // No sweeper runs yet, and no record has a job: the short ones read expired at their time all the same, closed at it.
    const read = await waitFor(
      "the stranger's record read expired",
      async () => (await request(app).get(`/api/orders/${stranger.id}`).expect(200)).body,
      (o) => o.state === 'expired',
    );
    expect(read).toMatchObject({ closed_at: stranger.expires_at, placement: 'unconfirmed' });
    expect((await request(app).get(`/api/orders/${ownShort.id}`).expect(200)).body).toMatchObject({ state: 'expired', closed_at: ownShort.expires_at });
    const [stored] = await h.env.db.query(`SELECT state FROM orders WHERE id = $1`, [stranger.id]);
    expect(stored.state).toBe('open');
    expect(Object.values(await ordersQueue().getJobCounts()).every((x) => x === 0)).toBe(true);
    // Neither list nor cancel treats it as open.
    expect((await request(app).post(`/api/orders/${ownShort.id}/cancel`).set(bearer(token)).expect(409)).body.code).toBe('order_expired');

    // What an earlier release left: a delayed job per record, up to the record's expiry.
    await h.env.queue.enqueue(orderExpireJob, { order_id: ownOpen.id }, { delay: 30 * 86400 * 1000 });
    expect(await ordersQueue().getJob(`order-expire.${ownOpen.id}`)).toBeDefined();

    await scheduleOrderJobs(h.env.queue, h.env.config);
    await waitFor(
      "the stranger's record and the owner's expired, never placed record deleted",
      async () => [await orderStatus(stranger.id), await orderStatus(ownShort.id)],
      (s) => s.every((x) => x === 404),
      60_000,
    );
    const deleted: { id: string; state: string; retained_for: number; closed_at: Date; expires_at: Date }[] = await h.env.db.query(
      `SELECT id, state, closed_at, expires_at,
              extract(epoch FROM deleted_at - CASE WHEN recorded_by_owner THEN closed_at ELSE created_at END)::float AS retained_for
         FROM test_deleted_orders WHERE id = ANY($1::uuid[]) ORDER BY id`,
      [[stranger.id, ownShort.id]],
    );
    expect(deleted).toHaveLength(2);
    for (const d of deleted) {
      // Written down as expired, at its time, before it went; and kept the whole retention first.
      expect(d.state).toBe('expired');
      expect(new Date(d.closed_at).toISOString()).toBe(new Date(d.expires_at).toISOString());
      expect(d.retained_for).toBeGreaterThanOrEqual(RETENTION_SECONDS);
    }
    // What the chain placed stays, marked so the sweeps pass over it; the owner's own open record stays.
    await waitFor(
      'the placed record kept for good',
      async () => (await h.env.db.query(`SELECT retained FROM orders WHERE id = $1`, [placed.id]))[0],
      (r) => r?.retained === true,
    );
    expect((await request(app).get(`/api/orders/${placed.id}`).expect(200)).body).toMatchObject({ placement: 'placed', state: 'open' });
    expect((await request(app).get(`/api/orders/${ownOpen.id}`).expect(200)).body).toMatchObject({ placement: 'recorded_by_owner', state: 'open' });
    // The leftover job is gone; its record is not.
    await waitFor(
      'the leftover order.expire job removed',
      () => ordersQueue().getJob(`order-expire.${ownOpen.id}`),
      (j) => j === undefined,
    );
    // Progress, batch by batch, in the log.
    const batch = logs.lines().find((l) => l.step === 'unconfirmed' && String(l.msg).startsWith('order records sweeper deleted a batch'));
    expect(batch).toMatchObject({ batch: expect.any(Number), deleted: expect.any(Number), totals: expect.objectContaining({ deleted: expect.any(Number) }) });
  }, 120_000);
});
