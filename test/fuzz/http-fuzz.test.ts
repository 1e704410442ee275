import http from 'node:http';
import fc from 'fast-check';
import { listSweep, requestsFor, seedCorpus, unknownRequests, type FuzzRequest } from './http-requests';
import { errorBodySchema } from '../../api/http/error-cases';
import { routeSpecsOf } from '../../api/http/mount-routes';
import { specViolation } from '../support/conformance-check';
import { mountedRoutes, routeKey } from '../support/mounted-routes';
import { testSeed } from '../support/test-seed';
import { createFuzzWorld, type FuzzWorld } from './http-world';
import { WriteCheck, writeBetween } from './write-check';

/**
 * Property: whatever arrives on any mounted route (valid-shaped, truncated, wrong types, huge
 * numbers, long or odd unicode strings, duplicate keys, odd content types and encodings, junk
 * credentials and ids), the service answers below 500, every 4xx carries the error body
 * {error, code, request_id, details?}, every answer keeps its route's contract (a status and code
 * it declares, a body its schema accepts), a 4xx writes nothing: no row in any table, no Redis
 * key under the test's prefix, and no accepted order has a timestamp past ORDER_MAX_HORIZON_SECONDS.
 *
 * "Writes nothing" is a full snapshot diff (write-check.ts), taken after every request during which
 * the world's write watch (write-watch.ts: Postgres triggers, Redis key tracking) heard a write,
 * and after every SAMPLE_EVERY-th request whatever it heard, which also checks the watch.
 */

/** The budget is a count, and the requests come from the run's seed (TEST_SEED): a failure replays. */
const RUNS = Number(process.env.FUZZ_HTTP_RUNS ?? 10_000);
const SEED = testSeed();

/** One request in this many gets the full snapshot diff even when the write watch heard nothing. */
const SAMPLE_EVERY = 25;

const ERROR_BODY_FIELDS = Object.keys(errorBodySchema.shape);

/** 5xx answers that are designed, not failures ("<status> <code>"): none today. */
const DESIGNED_5XX = new Set<string>();

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

function send(world: FuzzWorld, agent: http.Agent, r: FuzzRequest): Promise<Answer> {
  const url = new URL(world.baseUrl);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        agent,
        host: url.hostname,
        port: url.port,
        method: r.method,
        path: r.path,
        headers: { ...r.headers, ...(r.body ? { 'content-length': String(r.body.length) } : {}) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.setTimeout(15_000, () => req.destroy(new Error('no answer within 15 s')));
    req.on('error', reject);
    req.end(r.body);
  });
}

/** Why an answer breaks the contract, or null. */
function contractBreach(a: Answer): string | null {
  if (a.status >= 500) {
    const code = (() => {
      try {
        return (JSON.parse(a.text) as { code?: string }).code;
      } catch {
        return undefined;
      }
    })();
    if (!DESIGNED_5XX.has(`${a.status} ${code}`)) return `server error ${a.status}: ${a.text.slice(0, 300)}`;
  }
  if (a.status < 400) return null;
  if (!String(a.headers['content-type']).startsWith('application/json')) return `${a.status} is not JSON: ${a.headers['content-type']}`;
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(a.text) as Record<string, unknown>;
  } catch {
    return `${a.status} body is not JSON: ${a.text.slice(0, 200)}`;
  }
  // The fields the error body declares (`errorBodySchema`: e.g. `blocked_until` and `limit` of taker_unfillable_limit), nothing else.
  const extra = Object.keys(body).filter((k) => !ERROR_BODY_FIELDS.includes(k));
  if (extra.length > 0) return `error body has extra keys ${extra.join(', ')}`;
  if (typeof body.error !== 'string' || body.error.length === 0) return 'error body without an error text';
  if (typeof body.code !== 'string' || !/^[a-z][a-z0-9_]*$/.test(body.code)) return `error body code ${JSON.stringify(body.code)} is not snake_case`;
  if (typeof body.request_id !== 'string' || body.request_id !== a.headers['x-request-id'])
    return 'error body request_id missing or not the X-Request-Id header';
  if (body.details !== undefined) {
    const ok =
      Array.isArray(body.details) && body.details.length > 0 && body.details.every((d) => typeof d?.path === 'string' && typeof d?.message === 'string');
    if (!ok) return `details ${JSON.stringify(body.details).slice(0, 200)} is not a list of {path, message}`;
  }
  return null;
}

/** Why an answer breaks its route's contract (api/http): an undeclared status or code, a body off its schema. */
function contractDrift(world: FuzzWorld, r: FuzzRequest, a: Answer): string | null {
  const contracts = routeSpecsOf(world.app);
  if (!contracts) throw new Error('the fuzz app was not built from route specs');
  let body: unknown;
  try {
    body = String(a.headers['content-type']).startsWith('application/json') ? JSON.parse(a.text) : undefined;
  } catch {
    body = undefined;
  }
  return specViolation(contracts, r.method, r.path.split('?')[0], { status: a.status, headers: a.headers, body, text: a.text });
}

/** An order the service accepted must keep every timestamp within ORDER_MAX_HORIZON_SECONDS of now. */
function pastHorizon(world: FuzzWorld, r: FuzzRequest, a: Answer): string | null {
  if (r.method !== 'POST' || r.path.split('?')[0] !== '/api/orders' || a.status >= 300) return null;
  const d = (
    JSON.parse(a.text) as { data: { intentStartTime: number; intentExpiry: number; pairKey: { expiryTimestamp: number; startExecutionTimeStamp: number } } }
  ).data;
  const latest = Math.floor(Date.now() / 1000) + world.env.config.ORDER_MAX_HORIZON_SECONDS;
  const far = Object.entries({
    intentStartTime: d.intentStartTime,
    intentExpiry: d.intentExpiry,
    expiryTimestamp: d.pairKey.expiryTimestamp,
    startExecutionTimeStamp: d.pairKey.startExecutionTimeStamp,
  })
    .filter(([, v]) => v > latest)
    .map(([k]) => k);
  return far.length > 0 ? `accepted an order past the horizon: ${far.join(', ')}` : null;
}

const show = (r: FuzzRequest) =>
  `${r.method} ${r.path.slice(0, 300)} headers=${JSON.stringify(r.headers).slice(0, 400)} body=${r.body ? JSON.stringify(r.body.toString('utf8').slice(0, 400)) : '-'}`;

describe('HTTP fuzz: every mounted route', () => {
  let world: FuzzWorld;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

  beforeAll(async () => {
    // Before the first request: a run that hangs or crashes still says which seed replays it.
    process.stdout.write(`http fuzz: seed ${SEED}, ${RUNS} requests (TEST_SEED=${SEED} FUZZ_HTTP_RUNS=${RUNS} replays it)\n`);
    world = await createFuzzWorld();
  }, 60_000);
  afterAll(async () => {
    agent.destroy();
    await world?.close();
  });

  it("answers each seed of issue #38's corpus as sent (the bodies reach their deepest checks), within the contract, writing nothing for a 4xx", async () => {
    const seen: string[] = [];
    for (const seed of seedCorpus(world.material)) {
      await world.watch.drain();
      const before = await world.snapshot();
      const a = await send(world, agent, seed.request);
      const heard = await world.watch.drain();
      const after = await world.snapshot();
      // The watch the generated requests rely on hears every change the snapshots see.
      if (writeBetween(before, after) !== null) expect([show(seed.request), heard.length]).not.toEqual([show(seed.request), 0]);
      const code = a.status >= 400 ? (JSON.parse(a.text) as { code?: string }).code : undefined;
      seen.push(`${seed.request.method} ${seed.request.path.split('/').slice(0, 4).join('/')} ${a.status}${code ? ` ${code}` : ''}`);
      const breach = contractBreach(a) ?? contractDrift(world, seed.request, a);
      if (breach) throw new Error(`${breach}\n  request: ${show(seed.request)}`);
      expect([show(seed.request), a.status, code]).toEqual([show(seed.request), seed.status, seed.code]);
      if (a.status >= 400) expect([show(seed.request), writeBetween(before, after)]).toEqual([show(seed.request), null]);
    }
    process.stdout.write(`seed corpus: ${seen.join('; ')}\n`);
  }, 120_000);

  it('fails a 4xx when a write lands beside it (a row or a Redis key made or removed), and a sampled diff fails a write the watch did not hear', async () => {
    // Writes planted by the test itself through the real database and Redis, between two requests
    // that write nothing (an unknown path: 404), as a route that wrote before refusing would.
    const refused: FuzzRequest = { route: 'unknown', method: 'GET', path: '/api/fuzz-planted-write', headers: {} };
    const prefix = world.env.config.REDIS_PREFIX;
    const refuse = async (check: WriteCheck) => {
      const a = await send(world, agent, refused);
      expect(a.status).toBe(404);
      return check.after(a.status, () => show(refused));
    };
    const n = Number((await world.env.db.query(`SELECT count(*)::int AS n FROM settings`))[0].n);
    // The watch may hear more than the plant at the same time (a key of the world expiring), never less.
    const heardWith = (what: string) =>
      expect.stringMatching(new RegExp(`\\(the watch heard: (.*, )?${what.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(, .*)?\\)$`));
    // Every request sampled: the diff runs whatever the watch hears; then every 1,000th, so only the watch decides.
    for (const sampleEvery of [1, 1000]) {
      const check = new WriteCheck(world.snapshot, world.watch, sampleEvery);
      await check.start();
      expect(await refuse(check)).toBeNull();
      await world.env.db.query(`INSERT INTO settings (key, value) VALUES ('fuzz_planted', '1')`);
      const inserted = await refuse(check);
      expect(inserted).toMatch(new RegExp(`^wrote: settings ${n} -> ${n + 1} `));
      expect(inserted).toEqual(heardWith('table settings INSERT'));
      await world.env.db.query(`DELETE FROM settings WHERE key = 'fuzz_planted'`);
      const deleted = await refuse(check);
      expect(deleted).toMatch(new RegExp(`^wrote: settings ${n + 1} -> ${n} `));
      expect(deleted).toEqual(heardWith('table settings DELETE'));
      await world.env.redis.set(`${prefix}fuzz:planted`, '1');
      const created = await refuse(check);
      expect(created?.startsWith(`wrote: redis keys created: ${prefix}fuzz:planted `)).toBe(true);
      expect(created).toEqual(heardWith(`redis ${prefix}fuzz:planted`));
      await world.env.redis.del(`${prefix}fuzz:planted`);
      const removed = await refuse(check);
      expect(removed?.startsWith(`wrote: redis keys deleted: ${prefix}fuzz:planted `)).toBe(true);
      expect(removed).toEqual(heardWith(`redis ${prefix}fuzz:planted`));
      // A rate-limit counter is the one write a refusal may make: not heard, not a change.
      await world.env.redis.incr(`${prefix}rl:fuzz-planted`);
      expect(await refuse(check)).toBeNull();
      await world.env.redis.del(`${prefix}rl:fuzz-planted`);
      expect(await refuse(check)).toBeNull();
    }

    // A row written with the triggers off for its session: the watch cannot hear it, the sampled diff finds it.
    const deaf = async (sql: string) => {
      await world.env.db.transaction(async (m) => {
        await m.query(`SET LOCAL session_replication_role = replica`);
        await m.query(sql);
      });
    };
    const sampled = new WriteCheck(world.snapshot, world.watch, 2);
    await sampled.start();
    await deaf(`INSERT INTO settings (key, value) VALUES ('fuzz_planted', '1')`);
    // The first request is not sampled and the watch heard nothing: missed there...
    expect(await refuse(sampled)).toBeNull();
    // ...and caught by the next sample.
    expect(await refuse(sampled)).toBe(`the write watch heard nothing, but the sampled snapshot found: settings ${n} -> ${n + 1}`);
    await deaf(`DELETE FROM settings WHERE key = 'fuzz_planted'`);
    await refuse(sampled);
    expect(await refuse(sampled)).toBe(`the write watch heard nothing, but the sampled snapshot found: settings ${n + 1} -> ${n}`);
  }, 120_000);

  it(`answers ${RUNS} generated requests without a 5xx, with the error body on every 4xx, writing nothing for a 4xx`, async () => {
    const routes = mountedRoutes(world.app);
    expect(routes.length).toBeGreaterThan(20);
    const arbitrary = fc.oneof(...routes.map((r) => requestsFor(r, world.material)), unknownRequests(world.material));
    const perRoute = new Map<string, number>();
    const routeStatuses = new Map<string, Map<string, number>>();
    const statuses = new Map<number, number>();
    let sent = 0;
    let checked4xx = 0;
    const writes = new WriteCheck(world.snapshot, world.watch, SAMPLE_EVERY);
    await writes.start();

    await fc.assert(
      fc.asyncProperty(arbitrary, async (r) => {
        const a = await send(world, agent, r);
        // Before the contract checks, so the watch is drained after every request, whatever fails.
        const wrote = await writes.after(a.status, () => `${r.method} ${r.path.split('?')[0].slice(0, 100)}`);
        sent++;
        perRoute.set(r.route, (perRoute.get(r.route) ?? 0) + 1);
        statuses.set(a.status, (statuses.get(a.status) ?? 0) + 1);
        const byCode = routeStatuses.get(r.route) ?? new Map<string, number>();
        const code = a.status >= 400 ? `${a.status} ${/"code":"([a-z0-9_]+)"/.exec(a.text)?.[1] ?? '?'}` : String(a.status);
        byCode.set(code, (byCode.get(code) ?? 0) + 1);
        routeStatuses.set(r.route, byCode);
        const breach = contractBreach(a) ?? contractDrift(world, r, a) ?? pastHorizon(world, r, a);
        if (breach) throw new Error(`${breach}\n  request: ${show(r)}`);
        if (a.status >= 400 && a.status < 500) checked4xx++;
        if (wrote) throw new Error(`a ${a.status} (${a.text.slice(0, 200)}): ${wrote}\n  request: ${show(r)}`);
      }),
      { numRuns: RUNS, seed: SEED },
    );

    const summary = [...statuses]
      .sort(([a], [b]) => a - b)
      .map(([s, n]) => `${s}:${n}`)
      .join(' ');
    process.stdout.write(`http fuzz: seed ${SEED}, ${sent} requests over ${routes.length} routes, 4xx checked for writes ${checked4xx}; statuses ${summary}\n`);
    process.stdout.write(
      `http fuzz writes: ${writes.counts.snapshots} full snapshots for ${writes.counts.checked} requests (the watch heard a write, or one in ${SAMPLE_EVERY}); ` +
        `4xx heard writing with no change in the snapshot (an update, a key overwritten): ${writes.counts.heardWithoutChange4xx}` +
        `${writes.heardWithoutChangeExamples.map((e) => `\n  ${e}`).join('')}\n`,
    );
    if (process.env.FUZZ_HTTP_VERBOSE) {
      for (const [route, byCode] of routeStatuses) process.stdout.write(`  ${route}: ${[...byCode].map(([c, n]) => `${c}=${n}`).join(', ')}\n`);
    }
    expect(sent).toBeGreaterThanOrEqual(RUNS);
    // Every mounted route got a fair share of the run.
    const starved = routes.map(routeKey).filter((k) => (perRoute.get(k) ?? 0) < RUNS / (routes.length + 1) / 4);
    expect(starved).toEqual([]);
    // A limit on a hang, not a speed target: 10,000 requests on a two-core machine shared with other work take minutes.
  }, 1_200_000);

  it('answers every edge of every query key and cursor of every list and filter route below 500, within its contract', async () => {
    const requests = listSweep(world.material);
    // Every route of orders, Explore and loans that takes a query is swept: a new one must be added there.
    const withQuery = routeSpecsOf(world.app)!
      .filter((c) => c.request.query !== undefined && /^\/api\/(orders$|clob\/|explore\/|margin\/)/.test(c.path))
      .map((c) => `${c.method.toUpperCase()} ${c.path}`);
    expect([...new Set(requests.map((r) => r.route))].sort()).toEqual(withQuery.sort());

    const breaches: string[] = [];
    const statuses = new Map<string, number>();
    for (const r of requests) {
      const a = await send(world, agent, r);
      const code = a.status >= 400 ? `${a.status} ${/"code":"([a-z0-9_]+)"/.exec(a.text)?.[1] ?? '?'}` : String(a.status);
      statuses.set(code, (statuses.get(code) ?? 0) + 1);
      const breach = contractBreach(a) ?? contractDrift(world, r, a);
      if (breach) breaches.push(`${breach}\n  request: ${show(r)}`);
    }
    process.stdout.write(`list sweep: ${requests.length} requests; ${[...statuses].map(([c, n]) => `${c}=${n}`).join(', ')}\n`);
    expect(breaches).toEqual([]);
    // The sweep reaches past the gate and the filters: pages are answered, not only refusals.
    expect(statuses.get('200') ?? 0).toBeGreaterThan(requests.length / 10);
  }, 1_200_000);
});
