import type { OfferRow, QuoteLegRow, QuoteRow } from './quote.types';

/**
 * Every payload about a quote is shaped here, from explicit field lists, so what a maker can
 * see is decided in one place. A maker never gets the taker's address, the raw referrer, the
 * taker salt (with it a maker could test candidate wallets against taker_address_hash) or the
 * settling transaction's hash (its sender is the taker).
 */

export type LegView = {
  pair6909_contract: string;
  option_type: number;
  structure: number;
  direction: number;
  strike_wad: string;
  amount: string;
  start_exercise_timestamp: number;
  expiry_timestamp: number;
};

export type MakerQuoteView = {
  quote_id: string;
  chain_id: number;
  offer_format: string;
  strategy: string;
  polarity: string;
  directions: number[];
  taker_address_hash: string;
  legs: LegView[];
  expires_at: string;
  created_at: string;
};

export type TakerQuoteView = MakerQuoteView & {
  id: string;
  state: string;
  taker_address: string;
  referrer: string;
  taker_salt: string;
  closed_at: string | null;
  fill_tx_hash: string | null;
};

export type OfferView = {
  offer_id: string;
  quote_id: string;
  chain_id: number;
  maker: string;
  offer_type: 'package';
  package_premium: string;
  maker_pays_taker: boolean;
  premium_token: string;
  nonce: string;
  deadline: number;
  signature: string;
  created_at: string;
};

const iso = (d: Date | string) => new Date(d).toISOString();

export function legView(q: QuoteRow, l: QuoteLegRow): LegView {
  return {
    pair6909_contract: q.pair_contract,
    option_type: Number(l.option_type),
    structure: Number(l.structure),
    direction: Number(l.direction),
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
    directions: q.directions.map(Number),
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
export function makerResultView(q: QuoteRow): { quote_id: string; chain_id: number; state: string; closed_at: string | null } {
  return { quote_id: q.id, chain_id: q.chain_id, state: q.state, closed_at: q.closed_at ? iso(q.closed_at) : null };
}

/** The outcome as the taker learns it. */
export function takerResultView(q: QuoteRow) {
  return { ...makerResultView(q), fill_tx_hash: q.fill_tx_hash };
}
