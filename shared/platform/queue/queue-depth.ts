import type { Logger } from '../logging';
import type { Metrics } from '../metrics';
import type { JobQueue } from './job-queue';

/** The states a queue's jobs are counted in (BullMQ's names). */
export const QUEUE_JOB_STATES = ['waiting', 'prioritized', 'delayed', 'active', 'paused', 'waiting-children', 'failed', 'completed'] as const;

/**
 * Exports `rfq_queue_jobs{queue,state}`: each named queue's jobs per state, read from Redis when
 * /metrics is scraped (one getJobCounts per queue). Every process that exports it reads the same
 * Redis, so replicas report the same numbers: aggregate with max, not sum. A scrape whose read
 * fails or takes longer than `timeoutMs` reports no queue series rather than stale ones, and the
 * rest of the scrape is answered as usual.
 */
export function exportQueueDepths(deps: { metrics: Metrics; queue: JobQueue; logger: Logger }, names: readonly string[], timeoutMs: number): void {
  deps.metrics.gauge('rfq_queue_jobs', 'Jobs in each BullMQ queue by state, read from Redis at scrape time', ['queue', 'state'], async function () {
    this.reset();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`queue counts did not come within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      const counts = await Promise.race([Promise.all(names.map((n) => deps.queue.queue(n).getJobCounts(...QUEUE_JOB_STATES))), late]);
      names.forEach((queue, i) => {
        for (const state of QUEUE_JOB_STATES) this.set({ queue, state }, counts[i][state] ?? 0);
      });
    } catch (err) {
      deps.logger.warn({ err: (err as Error).message }, 'queue depths not read for this scrape');
    } finally {
      clearTimeout(timer);
    }
  });
}
