import { allFeeds, assertNoTakerLeak } from './fault-outcome';
import { PROCESS_NAMES, type Stack } from './fault-stack';
import { QuoteLoad, type CreatedQuote, type LoadOutcome } from './quote-load';

/**
 * The Redis data-loss invariant (docs/FAULTS.md, "Redis data loss"), checked per quote with the
 * maker clients' receive times: every quote answered 201 is finalized (expired, its result
 * published) within RECOVERY_BOUND_MS of the later of its window's end and the moment Redis
 * accepted writes again; every one still open at that moment, or created after it, is on every
 * maker feed (the four request-feed clients and the premium maker's rfq_maker topic) within
 * RECOVERY_BOUND_MS of the later of its creation and that moment; every stream token the load was
 * given still polls. A maker client behind the loss is told so (a rejoin answered
 * `recovered: false` at the new epoch's floor) and is never sent a seq twice.
 */
export const LOSS_LOAD = { requests: 120, intervalMs: 40, expiresIn: 6 };
export const RECOVERY_BOUND_MS = 10_000;
const SETTLE_TIMEOUT_MS = 40_000;
/** Longest wait, once every quote has settled, for the workers' line saying the loss was rebuilt. */
const NOTICE_TIMEOUT_MS = 60_000;

/** Every reason a workers process may give for its rebuild. */
const REBUILT =
  /^redis data loss \((epoch_missing|epoch_replaced|empty_at_start|keys_evicted|writes_rolled_back|shard_flushed|master_failed_over)\): rebuilt from Postgres, redid /;

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

/**
 * Runs the load with the loss alongside (`lose` answers when Redis accepted writes again), then
 * checks every quote; answers the `[redis-loss]` summary line. `saidAs`: the reason some process
 * must give for the loss (the one that noticed first; the others say epoch_replaced).
 */
export async function measureLoss(
  stack: Stack<unknown>,
  fault: string,
  lose: (load: QuoteLoad) => Promise<number>,
  saidAs: RegExp = /epoch_missing|epoch_replaced|empty_at_start/,
): Promise<string> {
  const feeds = allFeeds(stack);
  const restartsBefore = feeds.reduce((n, f) => n + f.epochRestarts, 0);
  const dupsBefore = feeds.reduce((n, f) => n + f.duplicates, 0);
  const skippedBefore = feeds.reduce((n, f) => n + f.skipped, 0);
  const notRecoveredBefore = feeds.reduce((n, f) => n + f.notRecovered, 0);
  const linesBefore = lossLines(stack).length;
  const saidBefore = new Map(PROCESS_NAMES.map((n) => [n, stack.procs.get(n)!.lines.length]));
  const metricBefore = await lossMetric(stack);
  let recoveredAt = 0;
  const load = await new QuoteLoad(stack.procs.get('api')!.url, { ...LOSS_LOAD, pair: stack.addresses.pair }).run(async (l) => {
    recoveredAt = await lose(l);
  });
  expect(recoveredAt).toBeGreaterThan(0);
  const fates = await settle(stack, load.created, recoveredAt);
  const s = summarize(fault, load, fates, recoveredAt, feeds.reduce((n, f) => n + f.epochRestarts, 0) - restartsBefore);
  const notRecovered = feeds.reduce((n, f) => n + f.notRecovered, 0) - notRecoveredBefore;
  const line =
    `[redis-loss] ${s.fault}: 201=${s.created} 503=${s.unavailable} due=${s.due} announced=${s.announced} late=${s.late} ` +
    `recovery_ms=${s.recoveryMs} finalized=${s.finalized} finalized_late=${s.finalizedLate} duplicates=${s.duplicates} epoch_restarts=${s.epochRestarts} not_recovered=${notRecovered}`;

  expect(deadProcesses(stack)).toEqual([]);
  expect(load.other5xx).toEqual([]);
  expect(load.otherFailures).toEqual([]);
  expect(s.created).toBeGreaterThan(0);
  expect(s.due).toBeGreaterThan(0);
  const unannounced = fates.filter((f) => isDue(f, recoveredAt) && !announcedEverywhere(f)).map(describeFate(recoveredAt));
  const unfinished = fates.filter((f) => !finalized(f)).map(describeFate(recoveredAt));
  const finalizedLate = fates.filter((f) => f.closedAt !== null && f.closedAt > Math.max(f.expiresAt, recoveredAt) + RECOVERY_BOUND_MS);
  const held = unannounced.length + unfinished.length + s.late + s.finalizedLate + s.duplicates > 0;
  // The counts first, in one line: a log cut short (CI keeps the head and tail) still says which part broke.
  if (held) process.stderr.write(`loss invariant broken: ${line}; unannounced=${unannounced.length} unfinished=${unfinished.length}\n`);
  expect({
    broken: held
      ? { late: s.late, finalizedLate: s.finalizedLate, duplicates: s.duplicates, unannounced: unannounced.length, unfinished: unfinished.length }
      : null,
    unannounced,
    unfinished,
    late: s.late,
    finalizedLate: finalizedLate.slice(0, 5).map(describeFate(recoveredAt)),
    duplicates: s.duplicates,
    // What the processes said about Redis, the sweeps and the queues when the invariant broke.
    said: held ? redisLines(stack, saidBefore) : [],
  }).toEqual({ broken: null, unannounced: [], unfinished: [], late: 0, finalizedLate: [], duplicates: 0, said: [] });
  // Nothing was skipped in delivery: what the clients did not get, the server told them it lost
  // (a rejoin answered recovered: false, at the new epoch's floor or, while the restarted Redis
  // had no event yet, at its head).
  expect(feeds.reduce((n, f) => n + f.skipped, 0) - skippedBefore).toBe(0);
  expect(feeds.reduce((n, f) => n + f.duplicates, 0) - dupsBefore).toBe(0);
  // The loss was noticed and said, once per workers process, with what was rebuilt. A workers
  // process says it when its rebuild is done, which may be after every quote above settled (the
  // recovery sweep a reconnection triggers can get there first): waited for, bounded.
  const said = () =>
    PROCESS_NAMES.flatMap((n) =>
      stack.procs
        .get(n)!
        .lines.slice(saidBefore.get(n))
        .filter((l) => String(l.msg).startsWith('redis data loss (')),
    );
  const noticed = await until(() => lossLines(stack).length > linesBefore && said().some((l) => saidAs.test(String(l.reason))), NOTICE_TIMEOUT_MS);
  // Why, as the process that noticed first says it (the others see the epoch it opened: epoch_replaced).
  expect({ noticed, said: noticed ? [] : redisLines(stack, saidBefore) }).toEqual({ noticed: true, said: [] });
  const lines = lossLines(stack).slice(linesBefore);
  for (const l of lines) {
    expect(l.msg).toMatch(REBUILT);
    expect(l).toMatchObject({ redone: expect.objectContaining({ schedulers: expect.any(Number), registrations: expect.any(Number) }), failed: [] });
  }
  expect(await lossMetric(stack)).toBeGreaterThan(metricBefore);
  await expectTokensPoll(stack, load.created);
  assertNoTakerLeak(stack, load.created);
  // From the recovery to the first process saying the loss, and to the last workers' rebuild line (their log times).
  const at = (l: Record<string, unknown>) => Date.parse(String(l.time)) - recoveredAt;
  return `${line} noticed_ms=${Math.min(...said().map(at))} rebuilt_ms=${Math.max(...lines.map(at))}`;
}

/** Polls `cond` every 100 ms until it holds or `timeoutMs` passed; answers whether it held. */
async function until(cond: () => boolean, timeoutMs: number): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
  return true;
}

/** What each process logged about Redis since the loss began: what a failure to notice it shows. */
function redisLines(stack: Stack<unknown>, since: Map<string, number>): string[] {
  return PROCESS_NAMES.flatMap((n) =>
    stack.procs
      .get(n)!
      .lines.slice(since.get(n))
      .filter(
        (l) => /redis|epoch|shard|sweep|queue|consumer/i.test(String(l.msg)) || l.level === 'warn' || l.level === 'error' || l.level === 40 || l.level === 50,
      )
      .slice(-15)
      .map((l) => `${n}: ${JSON.stringify(l).slice(0, 400)}`),
  );
}

/** Every quote's stream token, issued before or after the loss, still reads its quote (the REST poll checks it against Postgres). */
async function expectTokensPoll(stack: Stack<unknown>, created: CreatedQuote[]): Promise<void> {
  const api = stack.procs.get('api')!.url;
  const refused: string[] = [];
  // Eight polls in flight at a time rather than one: the same 120 answers checked.
  const queue = [...created];
  const poller = async () => {
    for (let q = queue.shift(); q !== undefined; q = queue.shift()) {
      const res = await fetch(`${api}/api/quote/${q.id}`, { headers: { 'x-quote-stream-token': q.streamToken } });
      const body = (await res.json()) as { quote?: { id?: string } };
      if (res.status !== 200 || body.quote?.id !== q.id) refused.push(`${q.id}: ${res.status}`);
    }
  };
  await Promise.all(Array.from({ length: 8 }, poller));
  expect(refused).toEqual([]);
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
async function settle(stack: Stack<unknown>, created: CreatedQuote[], recoveredAt: number): Promise<Fate[]> {
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
function lossLines(stack: Stack<unknown>): Record<string, unknown>[] {
  return (['workers-a', 'workers-b'] as const).flatMap((n) => stack.procs.get(n)!.lines.filter((l) => String(l.msg).startsWith('redis data loss (')));
}

/** rfq_redis_data_loss_total on the api process's /metrics, summed over reasons. */
async function lossMetric(stack: Stack<unknown>): Promise<number> {
  const text = await (await fetch(`${stack.procs.get('api')!.url}/metrics`)).text();
  return text
    .split('\n')
    .filter((l) => l.startsWith('rfq_redis_data_loss_total{'))
    .reduce((n, l) => n + Number(l.split(' ').pop()), 0);
}

function deadProcesses(stack: Stack<unknown>): string[] {
  return PROCESS_NAMES.flatMap((name) => {
    const p = stack.procs.get(name)!;
    if (p.child.exitCode === null && p.child.signalCode === null) return [];
    return [`${name} exited (${p.child.exitCode ?? p.child.signalCode}): ${p.stderr().slice(-2000)}`];
  });
}
