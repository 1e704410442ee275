import { QuoteRepository } from '../../shared/quotes';
import type { WorkerContext } from '../worker-context';

/**
 * Deletes quotes closed more than QUOTE_RETENTION_DAYS ago, with their legs and offers, in
 * batches of QUOTE_RETENTION_BATCH, at most QUOTE_RETENTION_MAX_BATCHES per run: each batch is
 * one short statement, and a backlog is worked off over several runs instead of one long job.
 * Returns how many quotes it deleted.
 */
export async function purgeClosedQuotes(ctx: WorkerContext): Promise<number> {
  const { QUOTE_RETENTION_DAYS: days, QUOTE_RETENTION_BATCH: size, QUOTE_RETENTION_MAX_BATCHES: maxBatches } = ctx.config;
  const repo = new QuoteRepository(ctx.db);
  let total = 0;
  for (let batch = 1; batch <= maxBatches; batch++) {
    const deleted = await repo.purgeClosed(days, size);
    if (deleted === 0) break;
    total += deleted;
    ctx.logger.info({ batch, deleted, total, older_than_days: days }, 'retention purged a batch of closed quotes');
    if (deleted < size) break;
    if (batch === maxBatches) ctx.logger.info({ total, max_batches: maxBatches }, 'retention stopped at its batch limit; the next run continues');
  }
  return total;
}
