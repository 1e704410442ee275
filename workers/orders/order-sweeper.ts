import { OrderRepository, publishFillState } from '../../shared/orders';
import type { WorkerContext } from '../worker-context';
import { expireFillJob, expireOrderJob } from './order-expiry';
import { reportSweep, type SweepReason } from '../sweep-report';

/** Past its time by this much, an order or fill is the sweeper's; younger ones belong to their delayed job. */
const SWEEP_GRACE_SECONDS = 2;
const SWEEP_BATCH = 500;

/**
 * The backstop for lost jobs and for states set outside the workers: expires orders and fills
 * whose jobs were lost, and tells makers fill states they have not heard (a fill the indexer
 * marked used, or reopened after a reorg). Each item stands alone: a failure is logged and
 * left for the next sweep.
 */
export async function sweepOrders(ctx: WorkerContext, opts: { reason?: SweepReason } = {}): Promise<Record<string, number>> {
  const work = await new OrderRepository(ctx.db).overdue(SWEEP_GRACE_SECONDS, SWEEP_BATCH);
  const steps: [string, string[], (id: string) => Promise<unknown>][] = [
    ['expire_order', work.orders, (id) => expireOrderJob(ctx, id)],
    ['expire_fill', work.fills, (id) => expireFillJob(ctx, id)],
    ['publish_fill', work.unpublished, (id) => publishFillState(ctx, id)],
  ];
  const redone: Record<string, number> = {};
  let skipped = 0;
  for (const [step, ids, run] of steps) {
    if (ids.length > 0) redone[step] = ids.length;
    for (const id of ids) {
      try {
        await run(id);
      } catch (err) {
        skipped++;
        ctx.logger.warn({ step, id, err: (err as Error).message }, 'orders sweeper skipped an item that failed; the next sweep tries it again');
      }
    }
  }
  reportSweep(ctx, 'order', redone, { reason: opts.reason ?? 'scheduled', skipped });
  return redone;
}
