import { Client } from 'pg';
import { allFeeds, assertNoTakerLeak, awaitOutcome, feedCounters, summaryLine, type FaultSummary } from './fault-outcome';
import { APP_NAME_PREFIX, PROCESS_NAMES, startStack, type ProcessName, type Stack } from './fault-stack';
import { QuoteLoad, type CreatedQuote } from './quote-load';
import { createAndSettle, prepareSettlement } from './settlement';

/**
 * Faults, measured: each fault is injected into the running service (one role per process)
 * under a steady quote load, and the outcome is counted. Every quote that got a 201 must reach
 * its final state with its result published to the taker; it must be announced exactly once on
 * every maker feed, unless it was no longer open when a Redis or Postgres outage ended (window
 * over, or filled, meanwhile); one still open then must be on every feed within
 * RECOVERY_ANNOUNCE_BOUND_MS of that moment. No maker-visible message may carry the taker's identity. While a dependency
 * is down, creates answer 503 with Retry-After, never another 5xx. docs/FAULTS.md has the record.
 */
const LOAD = { requests: 120, intervalMs: 40, expiresIn: 6 };
const SETTLE_TIMEOUT_MS = 40_000;
/** Settled quotes stay open well past the wait: their result must come from the fill, not from a later expiry. */
const SETTLED_EXPIRES_IN = 240;
/** Load (about 5 s), the fault's own steps, and the wait for every quote to finish. */
const FAULT_TIMEOUT_MS = 90_000;

let stack: Stack;
const summaries: FaultSummary[] = [];
const everyQuote: CreatedQuote[] = [];

beforeAll(async () => {
  stack = await startStack();
}, 150_000);

afterAll(async () => {
  // One block at the end, in the order the faults ran: what docs/FAULTS.md records.
  process.stdout.write(`\n${summaries.map(summaryLine).join('\n')}\n`);
  await stack?.close();
}, 60_000);

/** What a dependency fault tells the measurement: when the dependency was back (Date.now()). */
interface Outage {
  recoveredAt?: number;
}

/** Runs the load with `fault` alongside, waits for the outcome, prints and checks it. */
async function measure(
  name: string,
  fault: (load: QuoteLoad, outage: Outage) => Promise<CreatedQuote[] | void>,
  opts: { expectUnavailable?: boolean; mustFill?: boolean; outage?: 'redis' | 'postgres' } = {},
): Promise<void> {
  const before = feedCounters(allFeeds(stack));
  const recoveryLinesBefore = opts.outage ? recoveryLines(opts.outage) : 0;
  let extra: CreatedQuote[] = [];
  const outage: Outage = {};
  const load = await new QuoteLoad(stack.procs.get('api')!.url, { ...LOAD, pair: stack.addresses.pair }).run(async (l) => {
    extra = (await fault(l, outage)) ?? [];
  });
  if (opts.outage) expect(outage.recoveredAt).toEqual(expect.any(Number));
  const { summary, unfinished } = await awaitOutcome(stack, name, load, extra, before, {
    timeoutMs: SETTLE_TIMEOUT_MS,
    mustFill: opts.mustFill ? new Set(extra.map((q) => q.id)) : undefined,
    recoveredAt: outage.recoveredAt,
  });
  summaries.push(summary);
  everyQuote.push(...load.created, ...extra);

  // A crashed process explains every failure after it: report it first.
  expect(deadProcesses()).toEqual([]);
  expect(load.other5xx).toEqual([]);
  expect(load.otherFailures).toEqual([]);
  expect(summary.created).toBeGreaterThan(0);
  if (opts.expectUnavailable) expect(summary.unavailable).toBeGreaterThan(0);
  expect({ lost: summary.lost, duplicates: summary.duplicates, unfinished }).toEqual({ lost: 0, duplicates: 0, unfinished: [] });
  // Due: every 201, or for an outage every 201 still open at the recovery (most of them: a quote
  // lives 6 s, the outage is shorter); each announced everywhere, none later than the bound.
  if (!opts.outage) expect(summary.due).toBe(summary.created);
  expect(summary.due).toBeGreaterThan(0);
  expect({ announced: summary.announced, late: summary.late }).toEqual({ announced: summary.due, late: 0 });
  expect(summary.finalized).toBe(summary.created);
  // The workers saw the dependency come back and swept at once, saying so in one line each time.
  if (opts.outage) expect(recoveryLines(opts.outage)).toBeGreaterThan(recoveryLinesBefore);
  assertNoTakerLeak(stack, everyQuote);
}

/** How many "<dependency> reconnected: sweeping ..." lines the worker processes logged so far. */
function recoveryLines(dependency: 'redis' | 'postgres'): number {
  return (['workers-a', 'workers-b'] as const).reduce(
    (n, name) => n + stack.procs.get(name)!.lines.filter((l) => typeof l.msg === 'string' && l.msg.startsWith(`${dependency} reconnected: sweeping`)).length,
    0,
  );
}

/** Processes of the stack that exited without the test killing them, with how they ended. */
function deadProcesses(): string[] {
  return PROCESS_NAMES.flatMap((name) => {
    const p = stack.procs.get(name)!;
    if (p.child.exitCode === null && p.child.signalCode === null) return [];
    const errors = p.lines.filter((l) => l.level === 'error' || l.level === 'fatal').slice(-3);
    return [`${name} exited (${p.child.exitCode ?? p.child.signalCode}): ${p.stderr().slice(-2000)} ${JSON.stringify(errors)}`];
  });
}

/** A connection of the test's own, outside the service's sessions. */
async function admin<T>(fn: (c: Client) => Promise<T>): Promise<T> {
  const c = new Client({ connectionString: stack.env.config.DATABASE_URL, application_name: 'fault-suite' });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

async function waitUntil(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 20_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('faults under a steady quote load', () => {
  it(
    'Redis restarted',
    async () => {
      await measure(
        'redis restarted',
        async (load, outage) => {
          await load.waitAnswered(25);
          const settling = await prepareSettlement(stack, 4, SETTLED_EXPIRES_IN);
          await stack.redis.stop('SIGKILL');
          // The indexer sees this settlement while Redis is down: the fill must still reach the taker.
          await settling.execute();
          const downAt = load.answered;
          await load.waitAnswered(downAt + 30);
          await stack.redis.start();
          // Back: the server answers PING again.
          outage.recoveredAt = Date.now();
          return [settling.quote];
        },
        { expectUnavailable: true, mustFill: true, outage: 'redis' },
      );
    },
    FAULT_TIMEOUT_MS,
  );

  it(
    'Postgres connections killed',
    async () => {
      await measure(
        'postgres sessions terminated',
        async (load, outage) => {
          await load.waitAnswered(25);
          // Every session of every process, again and again while 40 requests are answered: pools
          // reconnect between rounds, so some rounds catch statements in flight.
          let rounds = 0;
          let killed = 0;
          await admin(async (c) => {
            while (load.answered < 65) {
              const res = await c.query(
                `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name LIKE $1`,
                [`${APP_NAME_PREFIX}%`],
              );
              rounds++;
              killed += res.rowCount ?? 0;
              await new Promise((r) => setTimeout(r, 20));
            }
          });
          // Back: no session is terminated after this moment.
          outage.recoveredAt = Date.now();
          expect(rounds).toBeGreaterThan(1);
          expect(killed).toBeGreaterThan(0);
        },
        { outage: 'postgres' },
      );
    },
    FAULT_TIMEOUT_MS,
  );

  it(
    'a worker process SIGKILLed mid-job',
    async () => {
      await measure('worker killed mid-job', async (load) => {
        await load.waitAnswered(20);
        // Hold the rows of the quotes created so far: their jobs (announce's bookkeeping, then the
        // expiry) block on them inside a worker, so the kill lands while a job is half done.
        const locker = new Client({ connectionString: stack.env.config.DATABASE_URL, application_name: 'fault-suite-locker' });
        await locker.connect();
        try {
          await locker.query('BEGIN');
          await locker.query(`SELECT id FROM quotes WHERE state = 'open' FOR UPDATE`);
          let blocked: ProcessName | null = null;
          await waitUntil('a worker job blocked on a held quote', async () => {
            const { rows } = await locker.query<{ app: string }>(
              `SELECT application_name AS app FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND application_name LIKE $1`,
              [`${APP_NAME_PREFIX}workers-%`],
            );
            blocked = rows.length > 0 ? (rows[0].app.slice(APP_NAME_PREFIX.length) as ProcessName) : null;
            return blocked !== null;
          });
          await stack.procs.get(blocked!)!.stop('SIGKILL');
          await locker.query('ROLLBACK');
          await stack.respawn(blocked!);
        } finally {
          await locker.end();
        }
      });
    },
    FAULT_TIMEOUT_MS,
  );

  it(
    'a socket replica SIGKILLed while clients are joined',
    async () => {
      await measure('socket replica killed', async (load) => {
        await load.waitAnswered(30);
        // The replica serving the most channels goes; its clients reconnect through the balancer.
        const channels = async (name: ProcessName) => {
          const text = await (await fetch(`${stack.procs.get(name)!.url}/metrics`)).text();
          return [...text.matchAll(/^socket_channels\{[^}]*\} (\d+)$/gm)].reduce((n, m) => n + Number(m[1]), 0);
        };
        const [a, b] = [await channels('socket-a'), await channels('socket-b')];
        const victim: ProcessName = a >= b ? 'socket-a' : 'socket-b';
        expect(Math.max(a, b)).toBeGreaterThan(0);
        const joinsBefore = allFeeds(stack).reduce((n, f) => n + f.joins, 0);
        await stack.procs.get(victim)!.stop('SIGKILL');
        stack.balancer.setUpstreams(stack.socketPorts());
        await waitUntil('every client joined again', () => allFeeds(stack).reduce((n, f) => n + f.joins, 0) >= joinsBefore + Math.max(a, b));
        await stack.respawn(victim);
        stack.balancer.setUpstreams(stack.socketPorts());
      });
    },
    FAULT_TIMEOUT_MS,
  );

  it(
    'the RPC node stopped and restarted under the indexer',
    async () => {
      await measure(
        'rpc node stopped and restarted',
        async (load) => {
          await load.waitAnswered(20);
          const settled = [await createAndSettle(stack, 1, SETTLED_EXPIRES_IN)];
          // The node's port goes away for the indexer (refused connections) while the chain moves on...
          await stack.rpcProxy.stop();
          settled.push(await createAndSettle(stack, 2, SETTLED_EXPIRES_IN));
          // ...then the node itself stops answering (requests hang until they time out)...
          process.kill(stack.node.pid, 'SIGSTOP');
          const stoppedAt = load.answered;
          await load.waitAnswered(stoppedAt + 25);
          // ...and comes back, reachable again.
          process.kill(stack.node.pid, 'SIGCONT');
          await stack.rpcProxy.start();
          settled.push(await createAndSettle(stack, 3, SETTLED_EXPIRES_IN));
          return settled;
        },
        { mustFill: true },
      );
    },
    FAULT_TIMEOUT_MS,
  );
});
