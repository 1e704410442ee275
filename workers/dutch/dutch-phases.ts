import { NotDueYet } from '../../shared/dutch';
import { RetryLater } from '../retry-later';
import type { WorkerContext } from '../worker-context';

/** A phase job that fired early by our clock goes back to wait the rest, without spending an attempt. */
async function due<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof NotDueYet) throw new RetryLater(err.delayMs, err.message);
    throw err;
  }
}

/** competing -> exclusive | open (with every other competition due now); the auctioneer schedules each winner's opening. */
export async function awardDutch(ctx: WorkerContext, quoteId: string): Promise<void> {
  const phase = await due(() => ctx.dutch.award(quoteId));
  if (phase) ctx.logger.debug({ quote_id: quoteId, phase }, 'Dutch auction awarded');
}

/** exclusive -> open (with every other window over now). */
export async function openDutch(ctx: WorkerContext, quoteId: string): Promise<void> {
  if (await due(() => ctx.dutch.open(quoteId))) ctx.logger.debug({ quote_id: quoteId }, 'Dutch auction open to every filler');
}
