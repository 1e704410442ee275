import { expireExclusiveFill, expireOrder, OrderRepository, publishFillState } from '../../shared/orders';
import { RetryLater } from '../retry-later';
import type { WorkerContext } from '../worker-context';

/**
 * An `order.expire` job enqueued by an earlier release (orders get no job now: they read expired
 * at their time, docs/ORDERS.md): writes the expiry down when it is due. Fired early by our
 * clock (its delay was counted on Redis's), it goes back to wait the rest.
 */
export async function expireOrderJob(ctx: WorkerContext, orderId: string): Promise<void> {
  const o = (await new OrderRepository(ctx.db).findOrder(orderId))?.order;
  if (!o) return;
  const early = new Date(o.expires_at).getTime() - Date.now();
  if (early > 0) {
    if (o.state === 'open') throw new RetryLater(early, `order ${orderId} expires in ${early} ms`);
    return;
  }
  if (await expireOrder(ctx.db, orderId)) ctx.logger.info({ order_id: orderId }, 'order expired');
}

/** Expires an active exclusive fill at expire_time (its orders are released), then tells its maker. */
export async function expireFillJob(ctx: WorkerContext, fillId: string): Promise<void> {
  const f = await new OrderRepository(ctx.db).findFill(fillId);
  if (!f) return;
  if (f.state === 'active') {
    const early = new Date(f.expire_time).getTime() - Date.now();
    if (early > 0) throw new RetryLater(early, `exclusive fill ${fillId} expires in ${early} ms`);
    if (await expireExclusiveFill(ctx.db, fillId)) ctx.logger.info({ exclusive_fill_id: fillId }, 'exclusive fill expired');
  }
  // Told once per state; a run that died after expiring tells it now.
  await publishFillState(ctx, fillId);
}
