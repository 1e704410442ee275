import { JOBS } from '../shared/jobs';
import type { Lifecycle } from '../shared/lifecycle';
import { HANDLERS } from './handlers';
import type { WorkerContext } from './worker-context';
import { WorkerHost } from './worker-host';

export type { WorkerContext } from './worker-context';

/** The workers role: checks the job registry, then consumes every queue it names. */
export function startWorkers(ctx: WorkerContext, lifecycle: Lifecycle, opts: { concurrency?: number } = {}): WorkerHost {
  const host = new WorkerHost(ctx, JOBS, HANDLERS, {
    redisUrl: ctx.config.REDIS_URL,
    prefix: `${ctx.config.REDIS_PREFIX}bull`,
    concurrency: opts.concurrency ?? 16,
  });
  host.start();
  lifecycle.onClose('workers', () => host.close());
  return host;
}
