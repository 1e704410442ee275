import type { DataSource } from 'typeorm';
import { AppError, DependencyUnavailableError, NotFoundError } from '../platform/errors';
import { QuoteRepository, type OfferService } from '../quotes';
import type { Bidder, DutchService } from './dutch.service';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Which real route a dry-run stands for: a package offer (POST /api/quote/:id) or a Dutch bid (POST /api/quote/:id/offer). */
export type DryRunKind = 'package_offer' | 'dutch_bid';

/** What the real route would do with the body: accept it (null) or answer this refusal. */
export interface DryRunOutcome {
  quoteId: string;
  kind: DryRunKind;
  refusal: AppError | null;
}

/**
 * POST /api/quote/:id/dry-run: runs the checks of the offer route the quote takes (the very
 * `check` / `checkBid` that route runs before it stores) and reports the refusal instead of
 * answering it. Nothing is stored, published or enqueued and no nonce is spent: the checks only
 * read. Lives here because a Dutch quote is a quote (shared/dutch imports shared/quotes, never
 * the reverse).
 */
export class OfferDryRun {
  private readonly quotes: QuoteRepository;

  constructor(
    db: DataSource,
    private readonly offers: OfferService,
    private readonly dutch: DutchService,
  ) {
    this.quotes = new QuoteRepository(db);
  }

  /**
   * An unknown quote is thrown (404), as an outage or an unexpected error is: only what the real
   * route would answer for this body and this maker is reported. `bodyError` is the refusal of
   * the body parser in front of the real route (malformed JSON, too large), which stops it first.
   */
  async run(quoteId: string, body: unknown, bidder: Bidder, bodyError?: AppError): Promise<DryRunOutcome> {
    const quote = UUID.test(quoteId) ? await this.quotes.findQuote(quoteId) : null;
    if (!quote) throw new NotFoundError(`quote ${quoteId} not found`, 'quote_not_found');
    const kind: DryRunKind = quote.offer_format === 'dutch_only' ? 'dutch_bid' : 'package_offer';
    const outcome = (refusal: AppError | null): DryRunOutcome => ({ quoteId: quote.id, kind, refusal });
    if (bodyError) return outcome(bodyError);
    try {
      if (kind === 'dutch_bid') await this.dutch.checkBid(quote.id, body, bidder);
      else await this.offers.check(quote.id, body, bidder.wallet);
      return outcome(null);
    } catch (err) {
      // A dependency down is the dry-run's own failure, not the route's verdict on the body.
      if (err instanceof AppError && !(err instanceof DependencyUnavailableError)) return outcome(err);
      throw err;
    }
  }
}
