import { z } from 'zod';
import { defineJob } from '../platform/queue/job-spec';
import { EXCLUSIVE_FILL_STATES } from '../../wire/src/order.wire';

const uuid = z.uuid();

/** Order and exclusive-fill work shares one queue, apart from quotes so neither starves the other. */
export const ORDERS_QUEUE = 'orders';

/** At the order's expiry (intentExpiry, or the option's expiry when orderOnExpiry is 1): open -> expired. */
export const orderExpireJob = defineJob({
  name: 'order.expire',
  queue: ORDERS_QUEUE,
  schema: z.object({ order_id: uuid }),
  jobId: (p) => `order-expire.${p.order_id}`,
  attempts: 10,
  backoffMs: 200,
});

/** At the fill's expire_time: active -> expired, its orders released, the maker told. */
export const exclusiveFillExpireJob = defineJob({
  name: 'exclusive_fill.expire',
  queue: ORDERS_QUEUE,
  schema: z.object({ exclusive_fill_id: uuid }),
  jobId: (p) => `exclusive-fill-expire.${p.exclusive_fill_id}`,
  attempts: 10,
  backoffMs: 200,
});

/** Tells the maker its fill's current state on rfq_maker:<maker>, once per state. */
export const exclusiveFillAnnounceJob = defineJob({
  name: 'exclusive_fill.announce',
  queue: ORDERS_QUEUE,
  schema: z.object({ exclusive_fill_id: uuid, state: z.enum(EXCLUSIVE_FILL_STATES) }),
  jobId: (p) => `exclusive-fill-announce.${p.exclusive_fill_id}.${p.state}`,
  attempts: 8,
  backoffMs: 100,
});

/**
 * Backstop, run on a schedule: expires orders and fills whose jobs were lost, and tells makers
 * the states they have not heard (a fill the indexer marked used, a publish that failed).
 */
export const ordersSweepJob = defineJob({
  name: 'orders.sweep',
  queue: ORDERS_QUEUE,
  schema: z.object({}).passthrough(),
  jobId: () => 'orders-sweep',
  attempts: 1,
});
