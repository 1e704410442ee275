import { expireDueOrders, OrderRecords, orderExpireJob, ORDERS_QUEUE, type RetentionKind } from '../../shared/orders';
import type { WorkerContext } from '../worker-context';

/** What one run did, per step: orders expired, records deleted or kept for good, leftover jobs removed. */
export type RecordsSwept = Record<string, number>;

/**
 * Runs `batch` until it finds less than a full batch, at most `maxBatches` times; each batch
 * answers how many rows it looked at and what to add to the run's totals.
 */
async function inBatches(
  ctx: WorkerContext,
  step: string,
  batch: () => Promise<{ scanned: number; counts: Record<string, number> }>,
  says: string,
): Promise<Record<string, number>> {
  const { ORDER_RECORDS_SWEEP_BATCH: size, ORDER_RECORDS_SWEEP_MAX_BATCHES: maxBatches } = ctx.config;
  const totals: Record<string, number> = {};
  for (let n = 1; n <= maxBatches; n++) {
    const b = await batch();
    if (b.scanned === 0) break;
    for (const [k, v] of Object.entries(b.counts)) totals[k] = (totals[k] ?? 0) + v;
    ctx.logger.info({ step, batch: n, ...b.counts, totals }, says);
    if (b.scanned < size) break;
    if (n === maxBatches) ctx.logger.info({ step, max_batches: maxBatches }, 'order records sweeper stopped at its batch limit; the next run continues');
  }
  return totals;
}

/**
 * The order records sweeper (docs/ORDERS.md, "Records nobody confirmed"), one run:
 *
 * 1. `expire`: writes down the expiry of open orders whose time has come (clients read them
 *    expired from that instant already: no order has a job of its own).
 * 2. `unconfirmed`: deletes records nobody confirmed ORDER_UNCONFIRMED_RETENTION after they were
 *    recorded; one found placed on chain (or named by a fill) is kept for good instead.
 * 3. `own_closed`: deletes records the owner made itself and never placed, the same time after
 *    they closed.
 * 4. `legacy_jobs`: removes the `order.expire` jobs an earlier release left waiting in Redis.
 *
 * Each step works in batches of ORDER_RECORDS_SWEEP_BATCH (one short statement each), at most
 * ORDER_RECORDS_SWEEP_MAX_BATCHES per run, and logs each batch: a backlog is worked off over
 * several runs, never in one long job. Every step is idempotent and skips rows another sweeper
 * holds, so replicas running it together do each row once.
 */
export async function sweepOrderRecords(ctx: WorkerContext): Promise<RecordsSwept> {
  const { ORDER_UNCONFIRMED_RETENTION: retention, ORDER_RECORDS_SWEEP_BATCH: size } = ctx.config;
  const records = new OrderRecords(ctx.db);
  const counter = ctx.metrics.counter(
    'rfq_order_records_swept_total',
    'Order records the records sweeper expired, deleted or kept for good, and leftover jobs it removed',
    ['step', 'outcome'],
  );
  const done: RecordsSwept = {};
  const add = (step: string, totals: Record<string, number>) => {
    for (const [outcome, n] of Object.entries(totals)) {
      counter.inc({ step, outcome }, n);
      if (n > 0) done[outcome === 'deleted' || outcome === 'expired' || outcome === 'removed' ? step : `${step}_${outcome}`] = n;
    }
  };

  add(
    'expire',
    await inBatches(
      ctx,
      'expire',
      async () => {
        const n = await expireDueOrders(ctx.db, size);
        return { scanned: n, counts: { expired: n } };
      },
      'order records sweeper wrote down a batch of order expiries',
    ),
  );
  const retain = (kind: RetentionKind, says: string) =>
    inBatches(
      ctx,
      kind,
      async () => {
        const b = await records.retentionBatch(kind, retention, size);
        return { scanned: b.scanned, counts: { deleted: b.deleted, kept: b.kept } };
      },
      says,
    );
  add('unconfirmed', await retain('unconfirmed', `order records sweeper deleted a batch of unconfirmed records recorded more than ${retention} s ago`));
  add('own_closed', await retain('own_closed', `order records sweeper deleted a batch of never-placed records closed more than ${retention} s ago`));
  add(
    'legacy_jobs',
    await inBatches(
      ctx,
      'legacy_jobs',
      () => removeLegacyJobs(ctx, size),
      'order records sweeper removed a batch of order.expire jobs left by an earlier release',
    ),
  );
  return done;
}

/**
 * One batch of the jobs earlier releases enqueued per order (`order.expire`, each delayed up to its
 * order's expiry, a year at most): pages through the orders queue's delayed jobs, soonest first,
 * past those that stay (exclusive-fill expiries), until a page holds some; those are removed.
 */
async function removeLegacyJobs(ctx: WorkerContext, size: number): Promise<{ scanned: number; counts: Record<string, number> }> {
  const q = ctx.queue.queue(ORDERS_QUEUE);
  for (let start = 0; ;) {
    const jobs = await q.getJobs(['delayed'], start, start + size - 1, true);
    const legacy = jobs.filter((j) => j.name === orderExpireJob.name);
    if (legacy.length > 0) {
      const removed = await Promise.all(
        legacy.map((j) =>
          j.remove().then(
            () => 1,
            () => 0,
          ),
        ),
      );
      const n = removed.reduce<number>((a, b) => a + b, 0);
      return { scanned: legacy.length, counts: { removed: n } };
    }
    if (jobs.length < size) return { scanned: 0, counts: {} };
    start += jobs.length;
  }
}
