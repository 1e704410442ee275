import { z } from 'zod';
import { defineJob } from '../platform/queue/job-spec';
import { EXCLUSIVE_FILL_STATES } from '../../wire/src/order.wire';

const uuid = z.uuid();

/** Order and exclusive-fill work shares one queue, apart from quotes so neither starves the other. */
export const ORDERS_QUEUE = 'orders';

/**
 * Enqueued by earlier releases at each order's create, to run at its expiry: open -> expired.
 * Nothing enqueues it now (a record anyone may make must not cost a job: docs/ORDERS.md); it stays
 * catalogued so jobs still waiting in Redis after an upgrade run, and the records sweeper removes
 * those it finds (ordersRecordsSweepJob).
 */
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
 * Backstop, run on a schedule: expires fills whose jobs were lost, tells makers the states they
 * have not heard (a fill the indexer marked used, a publish that failed), and writes down the
 * expiry of orders whose time has come (one batch).
 */
export const ordersSweepJob = defineJob({
  name: 'orders.sweep',
  queue: ORDERS_QUEUE,
  schema: z.object({}).passthrough(),
  jobId: () => 'orders-sweep',
  attempts: 1,
});

/**
 * The order records sweeper, run on a schedule (ORDER_RECORDS_SWEEP_INTERVAL_MS): writes down
 * the expiry of orders whose time has come, deletes records nobody confirmed after
 * ORDER_UNCONFIRMED_RETENTION, applies the per-owner and per-IP caps, in batches.
 */
export const ordersRecordsSweepJob = defineJob({
  name: 'orders.records_sweep',
  queue: ORDERS_QUEUE,
  schema: z.object({}).passthrough(),
  jobId: () => 'orders-records-sweep',
  attempts: 1,
});
