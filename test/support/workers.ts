import type { Hex } from 'viem';
import type { Logger } from '../../shared/platform/logging';
import type { JobSpec } from '../../shared/platform/queue';
import type { InterestedMakers } from '../../shared/quotes';
import { JOBS } from '../../workers/job-catalog';
import { HANDLERS } from '../../workers/job.handlers';
import type { BoundJob } from '../../workers/job-binding';
import { buildWorkerContext, type WorkerContext, type WorkerDeps } from '../../workers/worker-context';
import { WorkerHost } from '../../workers/worker-host';
import { QuoteExpiryClock } from '../../workers/quotes/quote-expiry-clock';

/** How a test's workers differ from the shipped ones; every field is optional. */
export interface WorkerOptions {
  /** The handlers to run (default: every shipped one, `HANDLERS`); a test swaps one in to play a replica that dies mid-job. */
  handlers?: BoundJob[];
  /** The catalog the handlers must match one to one (default: the shipped `JOBS`). */
  catalog?: Record<string, JobSpec>;
  /** Jobs each queue's worker runs at once (default 4). */
  concurrency?: number;
  /** The makers that hear every quote of a chain, as a list or as the workers role's lookup (default: none). */
  interestedMakers?: readonly Hex[] | InterestedMakers;
  /** The handlers' logger in place of the environment's (e.g. `captureLogs().logger`). */
  logger?: Logger;
  /** How long a job's lock lasts and how often stalled jobs are looked for: how soon another replica takes a dead one's job (WorkerHost's defaults otherwise). */
  lockDurationMs?: number;
  stalledIntervalMs?: number;
  /** How long a queue may hold due work while its consumer takes none before the watchdog replaces it (WorkerHost's default otherwise). */
  stuckAfterMs?: number;
  /** Runs the quote expiry clock beside the jobs, as the workers role does (default true): standard quotes have no expiry job. */
  expiryClock?: boolean;
}

/** A started worker host on a test environment's database, Redis and queue prefix. */
export interface Workers {
  host: WorkerHost;
  /** What its handlers are given (the event publisher, notifier, Dutch auctioneer). */
  ctx: WorkerContext;
  /** The quote expiry clock, when it runs. */
  expiryClock: QuoteExpiryClock | null;
  /** Lets running jobs finish, or with `force` abandons them as a crash would; a second call waits for the first. */
  close(force?: boolean): Promise<void>;
}

/** Starts the workers role's job host on `env` (a TestEnv or a harness's env), as bin/main.ts would, with a test's options. */
export function startWorkers(env: WorkerDeps, opts: WorkerOptions = {}): Workers {
  const makers = opts.interestedMakers ?? [];
  const interested: InterestedMakers = typeof makers === 'function' ? makers : async () => [...makers];
  const ctx = buildWorkerContext(opts.logger ? { ...env, logger: opts.logger } : env, interested);
  const host = new WorkerHost(ctx, opts.catalog ?? JOBS, opts.handlers ?? HANDLERS, {
    redis: env.config,
    redisPrefix: env.config.REDIS_PREFIX,
    concurrency: opts.concurrency ?? 4,
    ...(opts.lockDurationMs === undefined ? {} : { lockDurationMs: opts.lockDurationMs }),
    ...(opts.stalledIntervalMs === undefined ? {} : { stalledIntervalMs: opts.stalledIntervalMs }),
    ...(opts.stuckAfterMs === undefined ? {} : { stuckAfterMs: opts.stuckAfterMs }),
  });
  host.start();
  const expiryClock = opts.expiryClock === false ? null : new QuoteExpiryClock(ctx);
  expiryClock?.start();
  let closing: Promise<void> | undefined;
  const close = async (force: boolean) => {
    await expiryClock?.close();
    await host.close(force);
  };
  return { host, ctx, expiryClock, close: (force = false) => (closing ??= close(force)) };
}

/**
 * Replicas of the workers role on one environment (they share its queues), each started with the
 * set's options overridden by its own; `closeAll` closes every one started since the last call
 * (forced by default, as in an `afterEach`). `env` may be a getter, for a set declared before the
 * `beforeAll` that creates the environment.
 */
export function workerReplicas(env: WorkerDeps | (() => WorkerDeps), defaults: WorkerOptions = {}) {
  const running: Workers[] = [];
  return {
    start(opts: WorkerOptions = {}): Workers {
      const w = startWorkers(typeof env === 'function' ? env() : env, { ...defaults, ...opts });
      running.push(w);
      return w;
    },
    async closeAll(force = true): Promise<void> {
      await Promise.all(running.splice(0).map((w) => w.close(force)));
    },
  };
}
