import { offerAnnounceJob, quoteAnnounceJob, quoteExpireJob, quotesSweepJob, QuoteRepository } from '../../shared/quotes';
import { IdempotencyService } from '../../shared/idempotency';
import { handles, type RegisteredJob } from '../job-registry';
import type { WorkerContext } from '../worker-context';

/** Past its window by this much, an open quote is the sweeper's to expire; younger ones belong to their delayed job. */
const SWEEP_GRACE_SECONDS = 2;
const SWEEP_BATCH = 500;

/** A quote whose delayed job fires a little early (clock skew between Redis and us) is retried, not expired early. */
class NotDueYet extends Error {}

/** Closes an open quote once its window has passed, then publishes the result (once, whoever closed it). */
export async function expireQuote(ctx: WorkerContext, quoteId: string): Promise<void> {
  const repo = new QuoteRepository(ctx.db);
  const q = await repo.findQuote(quoteId);
  if (!q) return;
  if (q.state === 'open') {
    const early = new Date(q.expires_at).getTime() - Date.now();
    if (early > 0) throw new NotDueYet(`quote ${quoteId} expires in ${early} ms`);
    const closed = await repo.close(quoteId, 'expired');
    if (closed) ctx.logger.info({ quote_id: quoteId }, 'quote expired');
  }
  await ctx.notifier.publishResult(quoteId);
}

export const quoteHandlers: RegisteredJob[] = [
  handles(quoteAnnounceJob, (p, ctx) => ctx.notifier.announce(p.quote_id)),
  handles(offerAnnounceJob, (p, ctx) => ctx.notifier.announceOffer(p.offer_id)),
  handles(quoteExpireJob, (p, ctx) => expireQuote(ctx, p.quote_id)),
  handles(quotesSweepJob, async (_p, ctx) => {
    const work = await new QuoteRepository(ctx.db).overdue(SWEEP_GRACE_SECONDS, SWEEP_BATCH);
    for (const id of work.unannounced) await ctx.notifier.announce(id);
    for (const id of work.offers) await ctx.notifier.announceOffer(id);
    for (const id of work.expired) await expireQuote(ctx, id);
    for (const id of work.unpublished) await ctx.notifier.publishResult(id);
    const n = work.unannounced.length + work.offers.length + work.expired.length + work.unpublished.length;
    if (n > 0) ctx.logger.warn({ ...work }, 'sweeper redid lost quote work');
    const forgotten = await new IdempotencyService(ctx.db).purge(ctx.config.IDEMPOTENCY_TTL_HOURS);
    if (forgotten > 0) ctx.logger.info({ forgotten }, 'idempotency keys past their TTL removed');
  }),
];
