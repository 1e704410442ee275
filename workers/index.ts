import type { Config } from '../shared/platform/config';
import type { JobQueue } from '../shared/platform/queue';
import { JOBS } from './job-catalog';
import type { Lifecycle } from '../shared/platform/lifecycle';
import { PubsubRegistrations } from '../shared/events';
import { QUOTES_QUEUE, quotesRetentionJob, quotesSweepJob, type InterestedMakers } from '../shared/quotes';
import { HANDLERS } from './job.handlers';
import { ORDERS_QUEUE, ordersRecordsSweepJob, ordersSweepJob } from '../shared/orders';
import { buildWorkerContext, type WorkerDeps } from './worker-context';
import { WorkerHost } from './worker-host';
import { DutchClock } from './dutch/dutch-clock';
import { QuoteExpiryClock } from './quotes/quote-expiry-clock';
import { RecoverySweeper, sweepAfterRecovery } from './recovery-sweep';
import { RedisLossKeeper, type Schedule } from './redis-loss';
import { KeyRevocations } from '../shared/identity';
import { RedisEpoch } from '../shared/platform/redis';

export type { WorkerContext, WorkerDeps } from './worker-context';
export { buildWorkerContext } from './worker-context';

/** The quote jobs that run on a schedule, each under a fixed scheduler id (its job id). */
export function quoteSchedules(config: Pick<Config, 'QUOTE_SWEEP_INTERVAL_MS' | 'QUOTE_RETENTION_INTERVAL_MS'>): Schedule[] {
  return [
    { queue: QUOTES_QUEUE, id: quotesSweepJob.jobId({}), name: quotesSweepJob.name, everyMs: config.QUOTE_SWEEP_INTERVAL_MS },
    { queue: QUOTES_QUEUE, id: quotesRetentionJob.jobId({}), name: quotesRetentionJob.name, everyMs: config.QUOTE_RETENTION_INTERVAL_MS },
  ];
}

type OrderScheduleConfig = Pick<Config, 'ORDER_SWEEP_INTERVAL_MS' | 'ORDER_RECORDS_SWEEP_INTERVAL_MS'>;

/** The orders sweeper and the order records sweeper, on schedules under their fixed ids. */
export function orderSchedules(config: OrderScheduleConfig): Schedule[] {
  return [
    { queue: ORDERS_QUEUE, id: ordersSweepJob.jobId({}), name: ordersSweepJob.name, everyMs: config.ORDER_SWEEP_INTERVAL_MS },
    { queue: ORDERS_QUEUE, id: ordersRecordsSweepJob.jobId({}), name: ordersRecordsSweepJob.name, everyMs: config.ORDER_RECORDS_SWEEP_INTERVAL_MS },
  ];
}

async function install(queue: JobQueue, schedules: Schedule[]): Promise<void> {
  for (const s of schedules) await queue.queue(s.queue).upsertJobScheduler(s.id, { every: s.everyMs }, { name: s.name, data: {} });
}

/** Installs the quote schedules (start-up; RedisLossKeeper installs them again whenever they are missing). */
export function scheduleQuoteJobs(queue: JobQueue, config: Pick<Config, 'QUOTE_SWEEP_INTERVAL_MS' | 'QUOTE_RETENTION_INTERVAL_MS'>): Promise<void> {
  return install(queue, quoteSchedules(config));
}

/** Installs the orders sweepers' schedules. */
export function scheduleOrderJobs(queue: JobQueue, config: OrderScheduleConfig): Promise<void> {
  return install(queue, orderSchedules(config));
}

/**
 * The workers role: checks the job handlers against the catalog, consumes every queue it names, runs the Dutch
 * clock, sweeps at once when Redis or Postgres comes back (workers/recovery-sweep.ts), and keeps the quote sweeper and retention scheduled (every replica upserts the same schedulers, by fixed
 * ids; BullMQ keeps one of each).
 */
export async function startWorkers(
  deps: WorkerDeps,
  lifecycle: Lifecycle,
  opts: { concurrency?: number; interestedMakers?: InterestedMakers } = {},
): Promise<WorkerHost> {
  // Makers registered premium on a chain also get each new request on their own rfq_maker topic,
  // read only from a Redis whose epoch holds through the read (registeredInEpoch).
  const registrations = new PubsubRegistrations(deps.redis, deps.config);
  const ctx = buildWorkerContext(deps, opts.interestedMakers ?? ((chainId) => registrations.registeredInEpoch(chainId, 'premium')));
  const host = new WorkerHost(ctx, JOBS, HANDLERS, {
    redis: deps.config,
    redisPrefix: deps.config.REDIS_PREFIX,
    concurrency: opts.concurrency ?? 32,
  });
  await scheduleQuoteJobs(deps.queue, deps.config);
  await scheduleOrderJobs(deps.queue, deps.config);
  host.start();
  // Dutch deadlines on time, in batches; the Dutch jobs and the sweeper remain the guarantee.
  const clock = new DutchClock(ctx);
  clock.start();
  // Standard quotes expire by this clock over the open quotes' index: they have no expiry job.
  const expiries = new QuoteExpiryClock(ctx);
  expiries.start();
  // Lost work is redone the moment Redis or Postgres comes back, not at the sweepers' next tick.
  const recovery = new RecoverySweeper(ctx).watchRedis(deps.redis).watchPostgres(deps.db);
  for (const c of host.redisConnections) recovery.watchRedis(c);
  // Whatever Redis loses: schedules put back when missing, derived state rebuilt on an epoch change.
  const keeper = new RedisLossKeeper(ctx, {
    schedules: [...quoteSchedules(deps.config), ...orderSchedules(deps.config)],
    registrations: new PubsubRegistrations(deps.redis, deps.config, deps.db),
    revokedAmong: (ids) => new KeyRevocations(deps.db).revokedAmong(ids),
    sweep: sweepAfterRecovery,
    renewConsumers: () => host.renewConsumers(),
  }).start(RedisEpoch.of(deps.redis), deps.config.REDIS_EPOCH_CHECK_MS);
  lifecycle.onClose('workers', async () => {
    await keeper.close();
    await recovery.close();
    await clock.close();
    await expiries.close();
    await host.close();
  });
  return host;
}
