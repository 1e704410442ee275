import { NotDueYet } from '../../shared/dutch/dutch-auctioneer';
import { RetryLater } from '../retry-later';
import type { WorkerContext } from '../worker-context';
import { dutchOpenJob } from '../../shared/dutch';

/** A phase job that fired early by our clock goes back to wait the rest, without spending an attempt. */
async function due<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof NotDueYet) throw new RetryLater(err.delayMs, err.message);
    throw err;
  }
}

/** competing -> exclusive | open, then (for a winner) the job that ends the exclusive window. */
export async function awardDutch(ctx: WorkerContext, quoteId: string): Promise<void> {
  const phase = await due(() => ctx.dutch.award(quoteId));
  if (phase === 'exclusive') {
    const d = await ctx.dutch.deadlines(quoteId);
    if (d) await ctx.queue.enqueue(dutchOpenJob, { quote_id: quoteId }, { delay: Math.max(0, d.exclusiveEndsAt.getTime() - Date.now()) });
  }
  if (phase) ctx.logger.info({ quote_id: quoteId, phase }, 'Dutch auction awarded');
}

/** exclusive -> open. */
export async function openDutch(ctx: WorkerContext, quoteId: string): Promise<void> {
  if (await due(() => ctx.dutch.open(quoteId))) ctx.logger.info({ quote_id: quoteId }, 'Dutch auction open to every filler');
}
