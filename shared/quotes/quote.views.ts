import type { z } from 'zod';
import type { OfferRow, QuoteLegRow, QuoteRow } from './quote.types';
import type { legWire, makerQuoteWire, makerResultWire, offerWire, reopenedResultWire, takerQuoteWire, takerResultWire } from '../../wire/src/quote.wire';

/**
 * Every payload about a quote is shaped here, from explicit field lists, so what a maker can
 * see is decided in one place. A maker never gets the taker's address, the raw referrer, the
 * taker salt (with it a maker could test candidate wallets against taker_address_hash) or the
 * settling transaction's hash (its sender is the taker). The types are the wire schemas' (quote.wire.ts).
 */

export type LegView = z.output<typeof legWire>;
export type MakerQuoteView = z.output<typeof makerQuoteWire>;
export type TakerQuoteView = z.output<typeof takerQuoteWire>;
export type OfferView = z.output<typeof offerWire>;
export type MakerResultView = z.output<typeof makerResultWire>;
export type TakerResultView = z.output<typeof takerResultWire>;
/** A fill rolled back by a reorg, as the indexer tells the taker and the makers. */
export type ReopenedResultView = z.output<typeof reopenedResultWire>;

const iso = (d: Date | string) => new Date(d).toISOString();
/** A 0/1 column (the table's CHECK keeps it so), as the number the wire schema names. */
const bit = (v: unknown) => Number(v) as 0 | 1;

export function legView(q: QuoteRow, l: QuoteLegRow): LegView {
  return {
    pair6909_contract: q.pair_contract,
    option_type: bit(l.option_type),
    structure: bit(l.structure),
    direction: bit(l.direction),
    strike_wad: String(l.strike_wad),
    amount: String(l.amount),
    start_exercise_timestamp: Number(l.start_exercise_timestamp),
    expiry_timestamp: Number(l.expiry_timestamp),
  };
}

/** What the maker feed and maker topics carry about a quote. */
export function makerQuoteView(q: QuoteRow, legs: QuoteLegRow[]): MakerQuoteView {
  return {
    quote_id: q.id,
    chain_id: q.chain_id,
    offer_format: q.offer_format,
    strategy: q.strategy,
    polarity: q.polarity,
    directions: q.directions.map(bit),
    taker_address_hash: q.taker_address_hash,
    legs: legs.map((l) => legView(q, l)),
    expires_at: iso(q.expires_at),
    created_at: iso(q.created_at),
  };
}

/** What the taker (holder of the stream token) sees: everything about their own quote. */
export function takerQuoteView(q: QuoteRow, legs: QuoteLegRow[]): TakerQuoteView {
  return {
    id: q.id,
    ...makerQuoteView(q, legs),
    state: q.state,
    taker_address: q.taker_address,
    referrer: q.referrer,
    taker_salt: q.taker_salt,
    closed_at: q.closed_at ? iso(q.closed_at) : null,
    fill_tx_hash: q.fill_tx_hash,
  };
}

export function offerView(o: OfferRow): OfferView {
  return {
    offer_id: o.id,
    quote_id: o.quote_id,
    chain_id: o.chain_id,
    maker: o.maker,
    offer_type: 'package',
    package_premium: String(o.package_premium),
    maker_pays_taker: o.maker_pays_taker,
    premium_token: o.premium_token,
    nonce: String(o.nonce),
    deadline: Number(o.deadline),
    signature: o.signature,
    created_at: iso(o.created_at),
  };
}

/** The outcome as a maker that offered learns it. */
export function makerResultView(q: QuoteRow): MakerResultView {
  return { quote_id: q.id, chain_id: q.chain_id, state: q.state, closed_at: q.closed_at ? iso(q.closed_at) : null };
}

/** The outcome as the taker learns it. */
export function takerResultView(q: QuoteRow): TakerResultView {
  return { ...makerResultView(q), fill_tx_hash: q.fill_tx_hash };
}
