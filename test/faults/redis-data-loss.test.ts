import { spawn } from 'node:child_process';
import path from 'node:path';
import IORedis from 'ioredis';
import { DEVELOPMENT_SERVICE_SIGNER_KEY } from '../../shared/chain/service-signer';
import { noteWarningLine } from '../support/process-warnings';
import { serviceCommand } from '../support/spawn-service';
import { createTestEnv } from '../support/test-env';
import { allFeeds, assertNoTakerLeak } from './fault-outcome';
import { PROCESS_NAMES, sharedEnv, startStack, type Stack } from './fault-stack';
import { QuoteLoad, type CreatedQuote, type LoadOutcome } from './quote-load';
import { startTestRedis } from './redis-server';

/**
 * Redis loses its data under the fault suite's quote load, and the service loses and stalls
 * nothing (docs/FAULTS.md, "Redis data loss"). The invariant, checked per quote with the maker
 * clients' receive times: every quote answered 201 is finalized (expired, its result published)
 * within RECOVERY_BOUND_MS of the later of its window's end and the moment Redis accepted writes
 * again; every one still open at that moment, or created after it, is on every maker feed (the
 * four request-feed clients and the premium maker's rfq_maker topic) within RECOVERY_BOUND_MS of
 * the later of its creation and that moment. A maker client behind the loss is told so (a rejoin
 * answered `recovered: false` at the new epoch's floor) and is never sent a seq twice.
 *
 * The stack's Redis runs without persistence (no AOF, no RDB), so a restart comes back empty;
 * the sweepers keep their production interval (5 s), so only the loss detection can meet the bound.
 */
const LOAD = { requests: 120, intervalMs: 40, expiresIn: 6 };
const RECOVERY_BOUND_MS = 10_000;
const SETTLE_TIMEOUT_MS = 40_000;
const ROOT = path.resolve(__dirname, '../..');

interface Fate {
  id: string;
  state: string | null;
  createdAt: number;
  expiresAt: number;
  closedAt: number | null;
  resultPublished: boolean;
  /** Per maker feed, when the quote's rfq_request first arrived (null: never) and how many times. */
  firstAt: (number | null)[];
  deliveries: number[];
}

interface LossSummary {
  fault: string;
  created: number;
  unavailable: number;
  due: number;
  announced: number;
  late: number;
  finalized: number;
  finalizedLate: number;
  /** Slowest announcement of a due quote created before the recovery, from the recovery to its last feed. */
  recoveryMs: number;
  duplicates: number;
  epochRestarts: number;
}

const summaries: string[] = [];

afterAll(() => {
  // One block at the end, as the fault suite prints its lines (docs/FAULTS.md records them).
  if (summaries.length > 0) process.stdout.write(`\n${summaries.join('\n')}\n`);
});

describe('Redis loses its data under quote load', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack({ redis: { persistence: false } });
  }, 150_000);

  afterAll(async () => {
    await stack?.close();
  }, 60_000);

  it('FLUSHALL: every quote is announced and expired within the bound, and the workers say what they rebuilt', async () => {
    const admin = new IORedis(stack.redis.url);
    try {
      await measure(stack, 'FLUSHALL', async (load) => {
        await load.waitAnswered(30);
        await admin.flushall();
        return Date.now();
      });
    } finally {
      admin.disconnect();
    }
  }, 120_000);

  it('restarted with no AOF and no RDB: the same', async () => {
    await measure(stack, 'restarted empty', async (load) => {
      await load.waitAnswered(30);
      await stack.redis.stop('SIGKILL');
      await load.waitAnswered(50);
      await stack.redis.start();
      return Date.now();
    });
  }, 120_000);
});

describe('an evicting Redis accepted with REDIS_ALLOW_EVICTION=true', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack({
      redis: { persistence: false, args: ['--maxmemory', '48mb', '--maxmemory-policy', 'allkeys-lru'] },
      env: { REDIS_ALLOW_EVICTION: 'true' },
    });
  }, 150_000);

  afterAll(async () => {
    await stack?.close();
  }, 60_000);

  it('keys evicted under load: the service says so (keys_evicted) and the invariant still holds', async () => {
    const admin = new IORedis(stack.redis.url);
    try {
      await measure(
        stack,
        'keys evicted',
        async (load) => {
          await load.waitAnswered(30);
          // Memory pressure from outside the service: 1 MB values until Redis has evicted something.
          const evicted = async () => Number(/evicted_keys:(\d+)/.exec(await admin.info('stats'))?.[1] ?? 0);
          const junk: string[] = [];
          for (let i = 0; i < 200 && (await evicted()) === 0; i++) {
            junk.push(`junk:${i}`);
            await admin.set(`junk:${i}`, 'x'.repeat(1024 * 1024));
          }
          expect(await evicted()).toBeGreaterThan(0);
          await admin.del(...junk);
          return Date.now();
        },
        /keys_evicted/,
      );
    } finally {
      admin.disconnect();
    }
  }, 120_000);
});

describe('an evicting Redis', () => {
  it('is refused at start: exit 78 and one JSON line naming the policy and the fix', async () => {
    const redis = await startTestRedis({ persistence: false, args: ['--maxmemory', '32mb', '--maxmemory-policy', 'allkeys-lru'] });
    const env = await createTestEnv({ REDIS_URL: redis.url });
    try {
      const base = { ...sharedEnv(env, redis, 'x'.repeat(64)), SERVICE_SIGNER_KEY: DEVELOPMENT_SERVICE_SIGNER_KEY };
      const refused = await runToExit({ ...base, ROLES: 'workers', DATABASE_URL: env.config.DATABASE_URL });
      expect(refused.code).toBe(78);
      const fatal = refused.lines.filter((l) => l.level === 'fatal' || l.level === 60);
      expect(fatal).toHaveLength(1);
      expect(fatal[0]).toMatchObject({ maxmemory_policy: 'allkeys-lru', fix: 'CONFIG SET maxmemory-policy noeviction', override: 'REDIS_ALLOW_EVICTION=true' });
      expect(String(fatal[0].msg)).toMatch(/^refusing to start: Redis .* has maxmemory-policy allkeys-lru/);

      // With the override the same Redis is accepted, with a warning that says what it costs.
      const allowed = await runToExit({ ...base, ROLES: 'workers', DATABASE_URL: env.config.DATABASE_URL, REDIS_ALLOW_EVICTION: 'true' }, 'started');
      expect(allowed.code).not.toBe(78);
      expect(allowed.lines.some((l) => String(l.msg).startsWith('Redis evicts keys (maxmemory-policy allkeys-lru)'))).toBe(true);
      expect(allowed.lines.some((l) => l.msg === 'started')).toBe(true);
    } finally {
      await env.close();
      await redis.close();
    }
  }, 120_000);
});

/** Runs the load with the loss alongside (it answers when Redis accepted writes again), then checks every quote. */
async function measure(
  stack: Stack,
  fault: string,
  lose: (load: QuoteLoad) => Promise<number>,
  saidAs = /epoch_missing|epoch_replaced|empty_at_start/,
): Promise<void> {
  const feeds = allFeeds(stack);
  const restartsBefore = feeds.reduce((n, f) => n + f.epochRestarts, 0);
  const dupsBefore = feeds.reduce((n, f) => n + f.duplicates, 0);
  const skippedBefore = feeds.reduce((n, f) => n + f.skipped, 0);
  const notRecoveredBefore = feeds.reduce((n, f) => n + f.notRecovered, 0);
  const linesBefore = lossLines(stack).length;
  let recoveredAt = 0;
  const load = await new QuoteLoad(stack.procs.get('api')!.url, { ...LOAD, pair: stack.addresses.pair }).run(async (l) => {
    recoveredAt = await lose(l);
  });
  expect(recoveredAt).toBeGreaterThan(0);
  const fates = await settle(stack, load.created, recoveredAt);
  const s = summarize(fault, load, fates, recoveredAt, feeds.reduce((n, f) => n + f.epochRestarts, 0) - restartsBefore);
  const notRecovered = feeds.reduce((n, f) => n + f.notRecovered, 0) - notRecoveredBefore;
  summaries.push(
    `[redis-loss] ${s.fault}: 201=${s.created} 503=${s.unavailable} due=${s.due} announced=${s.announced} late=${s.late} ` +
      `recovery_ms=${s.recoveryMs} finalized=${s.finalized} finalized_late=${s.finalizedLate} duplicates=${s.duplicates} epoch_restarts=${s.epochRestarts} not_recovered=${notRecovered}`,
  );

  expect(deadProcesses(stack)).toEqual([]);
  expect(load.other5xx).toEqual([]);
  expect(load.otherFailures).toEqual([]);
  expect(s.created).toBeGreaterThan(0);
  expect(s.due).toBeGreaterThan(0);
  const unannounced = fates.filter((f) => isDue(f, recoveredAt) && !announcedEverywhere(f)).map(describeFate(recoveredAt));
  const unfinished = fates.filter((f) => !finalized(f)).map(describeFate(recoveredAt));
  expect({ unannounced, unfinished }).toEqual({ unannounced: [], unfinished: [] });
  expect({ late: s.late, finalizedLate: s.finalizedLate, duplicates: s.duplicates }).toEqual({ late: 0, finalizedLate: 0, duplicates: 0 });
  // Nothing was skipped in delivery: what the clients did not get, the server told them it lost
  // (a rejoin answered recovered: false, at the new epoch's floor or, while the restarted Redis
  // had no event yet, at its head).
  expect(feeds.reduce((n, f) => n + f.skipped, 0) - skippedBefore).toBe(0);
  expect(feeds.reduce((n, f) => n + f.duplicates, 0) - dupsBefore).toBe(0);
  // The loss was noticed and said, once per workers process, with what was rebuilt.
  const lines = lossLines(stack).slice(linesBefore);
  expect(lines.length).toBeGreaterThanOrEqual(1);
  // Why, as the process that noticed first says it (the others see the epoch it opened: epoch_replaced).
  const said = PROCESS_NAMES.flatMap((n) => stack.procs.get(n)!.lines.filter((l) => String(l.msg).startsWith('redis data loss (')));
  expect(said.some((l) => saidAs.test(String(l.reason)))).toBe(true);
  for (const l of lines) {
    expect(l.msg).toMatch(/^redis data loss \((epoch_missing|epoch_replaced|empty_at_start|keys_evicted)\): rebuilt from Postgres, redid /);
    expect(l).toMatchObject({ redone: expect.objectContaining({ schedulers: expect.any(Number), registrations: expect.any(Number) }), failed: [] });
  }
  expect(await lossMetric(stack)).toBeGreaterThanOrEqual(1);
  assertNoTakerLeak(stack, load.created);
}

/** Open at the recovery (its window had not ended), or created after it: must be on every maker feed. */
function isDue(f: Fate, recoveredAt: number): boolean {
  return f.expiresAt > recoveredAt;
}

function announcedEverywhere(f: Fate): boolean {
  return f.firstAt.every((t) => t !== null);
}

function finalized(f: Fate): boolean {
  return f.state === 'expired' && f.resultPublished;
}

function describeFate(recoveredAt: number) {
  return (f: Fate) => ({
    id: f.id,
    state: f.state,
    created_ms: f.createdAt - recoveredAt,
    expires_ms: f.expiresAt - recoveredAt,
    closed_ms: f.closedAt === null ? null : f.closedAt - recoveredAt,
    result_published: f.resultPublished,
    feeds_ms: f.firstAt.map((t) => (t === null ? null : t - recoveredAt)),
  });
}

/** Polls (bounded) until every quote is finalized and every due quote is on every feed; answers each quote's fate. */
async function settle(stack: Stack, created: CreatedQuote[], recoveredAt: number): Promise<Fate[]> {
  const feeds = allFeeds(stack);
  const until = Date.now() + SETTLE_TIMEOUT_MS;
  for (;;) {
    const rows: { id: string; state: string; created_ms: string; expires_ms: string; closed_ms: string | null; published: boolean }[] =
      await stack.env.db.query(
        `SELECT id, state, (extract(epoch FROM created_at) * 1000)::bigint::text AS created_ms, (extract(epoch FROM expires_at) * 1000)::bigint::text AS expires_ms,
              (extract(epoch FROM closed_at) * 1000)::bigint::text AS closed_ms, (result_published_at IS NOT NULL AND result_published_at >= closed_at) AS published
         FROM quotes WHERE id = ANY($1)`,
        [created.map((q) => q.id)],
      );
    const received = feeds.map((f) => {
      const m = new Map<string, { first: number; n: number }>();
      for (const e of f.received('rfq_request')) {
        const id = String(e.payload.quote_id);
        const prev = m.get(id);
        m.set(id, { first: prev?.first ?? e.at, n: (prev?.n ?? 0) + 1 });
      }
      return m;
    });
    const fates: Fate[] = rows.map((r) => ({
      id: r.id,
      state: r.state,
      createdAt: Number(r.created_ms),
      expiresAt: Number(r.expires_ms),
      closedAt: r.closed_ms === null ? null : Number(r.closed_ms),
      resultPublished: r.published,
      firstAt: received.map((m) => m.get(r.id)?.first ?? null),
      deliveries: received.map((m) => m.get(r.id)?.n ?? 0),
    }));
    const done = fates.length === created.length && fates.every((f) => finalized(f) && (!isDue(f, recoveredAt) || announcedEverywhere(f)));
    if (done || Date.now() > until) return fates;
    await new Promise((r) => setTimeout(r, 100));
  }
}

function summarize(fault: string, load: LoadOutcome, fates: Fate[], recoveredAt: number, epochRestarts: number): LossSummary {
  const due = fates.filter((f) => isDue(f, recoveredAt));
  const lastFeed = (f: Fate) => Math.max(...f.firstAt.map((t) => t ?? Number.POSITIVE_INFINITY));
  const announced = due.filter(announcedEverywhere);
  return {
    fault,
    created: load.created.length,
    unavailable: load.unavailable,
    due: due.length,
    announced: announced.length,
    late: announced.filter((f) => lastFeed(f) > Math.max(f.createdAt, recoveredAt) + RECOVERY_BOUND_MS).length,
    finalized: fates.filter(finalized).length,
    finalizedLate: fates.filter((f) => f.closedAt !== null && f.closedAt > Math.max(f.expiresAt, recoveredAt) + RECOVERY_BOUND_MS).length,
    recoveryMs: Math.max(0, ...announced.filter((f) => f.createdAt < recoveredAt).map((f) => lastFeed(f) - recoveredAt)),
    duplicates: fates.reduce((n, f) => n + f.deliveries.reduce((m, c) => m + Math.max(0, c - 1), 0), 0),
    epochRestarts,
  };
}

/** The workers' "redis data loss (...): rebuilt from Postgres" lines so far. */
function lossLines(stack: Stack): Record<string, unknown>[] {
  return (['workers-a', 'workers-b'] as const).flatMap((n) => stack.procs.get(n)!.lines.filter((l) => String(l.msg).startsWith('redis data loss (')));
}

/** rfq_redis_data_loss_total on the api process's /metrics, summed over reasons. */
async function lossMetric(stack: Stack): Promise<number> {
  const text = await (await fetch(`${stack.procs.get('api')!.url}/metrics`)).text();
  return text
    .split('\n')
    .filter((l) => l.startsWith('rfq_redis_data_loss_total{'))
    .reduce((n, l) => n + Number(l.split(' ').pop()), 0);
}

function deadProcesses(stack: Stack): string[] {
  return PROCESS_NAMES.flatMap((name) => {
    const p = stack.procs.get(name)!;
    if (p.child.exitCode === null && p.child.signalCode === null) return [];
    return [`${name} exited (${p.child.exitCode ?? p.child.signalCode}): ${p.stderr().slice(-2000)}`];
  });
}

/** Starts one service process and waits for it to exit, or (`until`) for that log line, then stops it. */
async function runToExit(env: Record<string, string>, until?: string): Promise<{ code: number | null; lines: Record<string, unknown>[] }> {
  const [command, args] = serviceCommand();
  const child = spawn(command, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: Record<string, unknown>[] = [];
  let buf = '';
  const closed = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  child.stdout.on('data', (d: Buffer) => {
    buf += d.toString();
    let i: number;
    while ((i = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      try {
        const parsed = JSON.parse(line) as Record<string, unknown>;
        lines.push(parsed);
        noteWarningLine(parsed, `spawned ${env.ROLES ?? 'all roles'} process ${child.pid}`);
        if (until !== undefined && parsed.msg === until) child.kill('SIGTERM');
      } catch {
        // not a log line
      }
    }
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
  const code = await closed;
  clearTimeout(timer);
  return { code, lines };
}
