import { closeQuote, QuoteRepository } from '../../shared/quotes';
import { RetryLater } from '../retry-later';
import type { WorkerContext } from '../worker-context';

/**
 * Closes an open quote once its window has passed, then tells the taker and the makers that
 * offered. A job that fires early by our clock (its delay was counted on Redis's clock) expires
 * the quote if it is within QUOTE_EXPIRY_SKEW_MS of the end, else goes back to wait the rest.
 */
export async function expireQuote(ctx: WorkerContext, quoteId: string): Promise<void> {
  const repo = new QuoteRepository(ctx.db);
  const q = await repo.findQuote(quoteId);
  if (!q) return;
  let state = q.state;
  if (state === 'open') {
    const early = new Date(q.expires_at).getTime() - Date.now();
    if (early > ctx.config.QUOTE_EXPIRY_SKEW_MS) throw new RetryLater(early, `quote ${quoteId} expires in ${early} ms`);
    // Still unannounced (its announce job was lost or is stuck behind an outage): announce it
    // before closing it, or no later run could (announce skips closed quotes). The notifier
    // sends it only if its window ended moments ago (LATE_ANNOUNCE_MS), once, and only for the
    // formats it announces.
    if (q.announced_at === null) await ctx.notifier.announce(quoteId);
    const closed = await closeQuote(ctx.db, quoteId, 'expired');
    if (closed) {
      ctx.logger.info({ quote_id: quoteId }, 'quote expired');
      state = 'expired';
    } else {
      state = (await repo.findQuote(quoteId))?.state ?? state;
    }
  }
  // Only an expiry is this job's to announce (again, if a run died after closing). A fill or a
  // cancel was announced by the path that made it, under its own key: announcing it here too
  // would send the taker a second rfq_result.
  if (state === 'expired') await ctx.notifier.publishResult(quoteId);
}
