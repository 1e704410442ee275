import type { DataSource } from 'typeorm';
import { topics, type EventPublisher } from '../events';
import { OrderRepository } from './order.repository';
import { exclusiveFillEvent } from './order.views';

/** The event name a fill's state is told under on rfq_maker:<maker>. */
export const FILL_EVENTS = { active: 'exclusive_fill_issued', used: 'exclusive_fill_used', expired: 'exclusive_fill_expired' } as const;

/**
 * Tells a maker its exclusive fill's current state on its own topic, once per state (the
 * idempotency key is the fill and the state, plus its close time: a fill reopened by a reorg
 * and used again is news again), then records that it did, which drains the sweeper's outbox.
 */
export async function publishFillState(deps: { db: DataSource; events: EventPublisher }, fillId: string): Promise<boolean> {
  const repo = new OrderRepository(deps.db);
  const f = await repo.findFill(fillId);
  if (!f) return false;
  const closed = f.closed_at ? new Date(f.closed_at).getTime() : 0;
  await deps.events.publish(
    topics.rfqMaker(f.maker),
    FILL_EVENTS[f.state],
    { ...exclusiveFillEvent(f) },
    { idempotencyKey: `${FILL_EVENTS[f.state]}.${f.id}.${closed}` },
  );
  await repo.markFillPublished(f.id, f.state);
  return true;
}
