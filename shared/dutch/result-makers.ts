import type { DataSource } from 'typeorm';
import { QuoteRepository, type ResultMakers } from '../quotes';
import { DutchRepository } from './dutch.repository';

/**
 * The makers that hear a quote's result: those that offered on it (shared/quotes) and, on a
 * Dutch quote, those that bid. The quotes domain publishes results through its `ResultMakers`
 * hook and the roles pass this one, so the Dutch bids stay this domain's to read.
 */
export function resultMakers(db: DataSource): ResultMakers {
  const quotes = new QuoteRepository(db);
  const dutch = new DutchRepository(db);
  return async (quoteId) => {
    const [offered, bid] = await Promise.all([quotes.offeringMakers(quoteId), dutch.biddingMakers(quoteId)]);
    return [...new Set([...offered, ...bid])].sort();
  };
}
