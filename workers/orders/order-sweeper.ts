import { expireDueOrders, OrderRepository, publishFillState } from '../../shared/orders';
import type { WorkerContext } from '../worker-context';
import { expireFillJob } from './order-expiry';
import { redoSteps, type SweepReason } from '../sweep-report';

/** Past its time by this much, a fill is the sweeper's; younger ones belong to their delayed job. */
const SWEEP_GRACE_SECONDS = 2;
const SWEEP_BATCH = 500;

/**
 * The backstop for lost jobs and for states set outside the workers: expires fills whose jobs
 * were lost, tells makers fill states they have not heard (a fill the indexer marked used, or
 * reopened after a reorg), and writes down the expiry of orders whose time has come (one batch:
 * orders have no job of their own, they read expired at their time; the records sweeper works
 * off a larger backlog). Each fill stands alone: a failure is logged and left for the next sweep.
 *
 * The returned counts include `expire_order`; the sweep's log line names only what it redid
 * (lost fill jobs, unheard fill states): writing down an order's expiry is this sweep's own
 * work, not lost work.
 */
export async function sweepOrders(ctx: WorkerContext, opts: { reason?: SweepReason } = {}): Promise<Record<string, number>> {
  const expired = await expireDueOrders(ctx.db, SWEEP_BATCH);
  const work = await new OrderRepository(ctx.db).overdue(SWEEP_GRACE_SECONDS, SWEEP_BATCH);
  const redone = await redoSteps(
    ctx,
    'order',
    [
      ['expire_fill', work.fills, (id) => expireFillJob(ctx, id)],
      ['publish_fill', work.unpublished, (id) => publishFillState(ctx, id)],
    ],
    opts.reason ?? 'scheduled',
  );
  return expired > 0 ? { expire_order: expired, ...redone } : redone;
}
