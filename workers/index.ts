import { JOBS } from '../shared/jobs';
import type { Lifecycle } from '../shared/lifecycle';
import { PubsubRegistrations } from '../shared/events';
import { bullPrefix } from '../shared/redis';
import { QUOTES_QUEUE, quotesSweepJob, type InterestedMakers } from '../shared/quotes';
import { HANDLERS } from './handlers';
import { buildWorkerContext, type WorkerDeps } from './worker-context';
import { WorkerHost } from './worker-host';

export type { WorkerContext, WorkerDeps } from './worker-context';
export { buildWorkerContext } from './worker-context';

/**
 * The workers role: checks the job registry, consumes every queue it names, and keeps the
 * quote sweeper scheduled (every replica upserts the same scheduler; BullMQ keeps one).
 */
export async function startWorkers(
  deps: WorkerDeps,
  lifecycle: Lifecycle,
  opts: { concurrency?: number; interestedMakers?: InterestedMakers } = {},
): Promise<WorkerHost> {
  // Makers registered premium on a chain also get each new request on their own rfq_maker topic.
  const registrations = new PubsubRegistrations(deps.redis, deps.config);
  const ctx = buildWorkerContext(deps, opts.interestedMakers ?? ((chainId) => registrations.registered(chainId, 'premium')));
  const host = new WorkerHost(ctx, JOBS, HANDLERS, {
    redisUrl: deps.config.REDIS_URL,
    prefix: bullPrefix(deps.config.REDIS_PREFIX),
    concurrency: opts.concurrency ?? 32,
  });
  await deps.queue
    .queue(QUOTES_QUEUE)
    .upsertJobScheduler('quotes-sweep', { every: deps.config.QUOTE_SWEEP_INTERVAL_MS }, { name: quotesSweepJob.name, data: {} });
  host.start();
  lifecycle.onClose('workers', () => host.close());
  return host;
}
