import type { z } from 'zod';
import { legView, takerQuoteView, type QuoteLegRow, type QuoteRow } from '../quotes';
import type { VisibleDutchPhase } from '../../wire/src/dutch.wire';
import type { DutchBidRow, DutchColumns } from './dutch.types';
import {
  MAX_BID_BPS,
  type competingWire,
  type dutchAwardWire,
  type dutchRequestWire,
  type fillableWire,
  type makerBidWire,
  type takerBidWire,
  type takerDutchQuoteWire,
  type winnerAwardWire,
} from '../../wire/src/dutch.wire';

/**
 * Every payload about a Dutch quote is shaped here, from explicit field lists. While a quote
 * competes, makers see the package's shape and nothing that depends on the taker's side: no
 * directions, polarity, taker hash, maker_address_hash, premium curve (its slope gives away who
 * pays) or signed request; two auctions of one package, bought and sold, look the same. From
 * the award on, the fillable payload (the signed request a filler submits) is public; the taker's
 * address and the raw referrer are never fields of any maker payload (docs/DUTCH.md). The
 * types are the wire schemas' (dutch.wire.ts).
 */

export type CompetingView = z.output<typeof competingWire>;
export type FillableView = z.output<typeof fillableWire>;
export type WinnerAwardView = z.output<typeof winnerAwardWire>;
export type TakerDutchView = z.output<typeof takerDutchQuoteWire>;
export type TakerBidView = z.output<typeof takerBidWire>;
export type MakerBidView = z.output<typeof makerBidWire>;
type DutchRequestView = z.output<typeof dutchRequestWire>;
type DutchAwardView = z.output<typeof dutchAwardWire>;

const iso = (d: Date | string) => new Date(d).toISOString();

/** A leg as makers see it while the auction competes: the package's shape, no direction. */
function competingLeg(q: QuoteRow, l: QuoteLegRow) {
  const { direction: _hidden, ...leg } = legView(q, l);
  return leg;
}

/** The planned or actual end of the exclusive window (competition end + exclusive_ms, by the auction's end). */
export function exclusiveEndsAt(q: Pick<QuoteRow, 'expires_at'>, d: Pick<DutchColumns, 'exclusive_ends_at' | 'compete_ends_at' | 'exclusive_ms'>): Date {
  if (d.exclusive_ends_at) return new Date(d.exclusive_ends_at);
  const planned = new Date(d.compete_ends_at).getTime() + Number(d.exclusive_ms);
  return new Date(Math.min(planned, new Date(q.expires_at).getTime()));
}

/** The phase clients see: the live phase while open, else the quote's closing state. */
export const visiblePhase = (q: QuoteRow, d: DutchColumns): VisibleDutchPhase => (q.state === 'open' ? d.dutch_phase : q.state);

const premiumToken = (d: DutchColumns) => String((d.dutch_request.dutch_premium as { token: string }).token);

/** What the maker feed carries while competing. */
export function competingView(q: QuoteRow, legs: QuoteLegRow[], d: DutchColumns): CompetingView {
  return {
    quote_id: q.id,
    chain_id: q.chain_id,
    offer_format: q.offer_format,
    dutch_phase: 'competing' as const,
    strategy: q.strategy,
    legs: legs.map((l) => competingLeg(q, l)),
    premium_token: premiumToken(d),
    compete_ends_at: iso(d.compete_ends_at),
    expires_at: iso(q.expires_at),
    created_at: iso(q.created_at),
    bid: { buy_override_bps: { min: 0, max: MAX_BID_BPS }, sell_override_bps: { min: 0, max: MAX_BID_BPS } } as const,
  };
}

/**
 * The public award: what any filler submits with the signed request. It names the winner's
 * filler address, which is no secret: the mothership gives the winner's price only to that
 * caller during the exclusive window, so a copy of the award is worth nothing to anyone else.
 */
export function publicAward(d: DutchColumns): DutchAwardView | null {
  // The column holds the award the auctioneer signed (dutch-award-decision.ts), in this form.
  return d.award as DutchAwardView | null;
}

/** The signed request, stored by the Dutch service from the parsed request in this form. */
const signedRequest = (d: DutchColumns) => d.dutch_request as DutchRequestView;

/** What the maker feed carries from the award on: everything a filler submits on chain. */
export function fillableView(q: QuoteRow, legs: QuoteLegRow[], d: DutchColumns): FillableView {
  return {
    quote_id: q.id,
    chain_id: q.chain_id,
    offer_format: q.offer_format,
    dutch_phase: visiblePhase(q, d),
    strategy: q.strategy,
    polarity: q.polarity,
    directions: q.directions.map((v) => Number(v) as 0 | 1),
    legs: legs.map((l) => legView(q, l)),
    premium_token: premiumToken(d),
    taker_address_hash: q.taker_address_hash,
    dutch_request: signedRequest(d),
    taker_signature: d.taker_signature,
    request_digest: d.dutch_request_digest,
    award: publicAward(d),
    compete_ends_at: iso(d.compete_ends_at),
    exclusive_ends_at: iso(exclusiveEndsAt(q, d)),
    expires_at: iso(q.expires_at),
    created_at: iso(q.created_at),
  };
}

/** The winner's own notice (`dutch_award` on its `rfq_maker` topic): the fillable payload, whose award names its filler. */
export function winnerAwardView(q: QuoteRow, legs: QuoteLegRow[], d: DutchColumns): WinnerAwardView {
  const award = publicAward(d);
  return { ...fillableView(q, legs, d), award: { ...(award as DutchAwardView), filler: String(award?.filler) } };
}

/** The taker's own Dutch quote: the standard taker view plus phase, deadlines, request and award. */
export function takerDutchView(q: QuoteRow, legs: QuoteLegRow[], d: DutchColumns): TakerDutchView {
  return {
    ...takerQuoteView(q, legs),
    dutch_phase: visiblePhase(q, d),
    compete_ends_at: iso(d.compete_ends_at),
    exclusive_ends_at: iso(exclusiveEndsAt(q, d)),
    dutch_request: signedRequest(d),
    taker_signature: d.taker_signature,
    request_digest: d.dutch_request_digest,
    award: publicAward(d),
    winner: d.winner,
  };
}

/** The taker's side of a package: `buy` when its polarity buys the package as makers see it. */
export const takerSide = (q: QuoteRow): 'buy' | 'sell' => (q.polarity === 'b_is_buy' ? 'buy' : 'sell');

/** A bid as the taker hears it: the side that applies to the taker only. */
export function takerBidView(q: QuoteRow, b: DutchBidRow): TakerBidView {
  const side = takerSide(q);
  return {
    quote_id: q.id,
    bid_id: b.id,
    maker: b.maker,
    side,
    override_bps: Number(side === 'buy' ? b.buy_override_bps : b.sell_override_bps),
    version: Number(b.version),
    bid_at: iso(b.bid_at),
  };
}

/** A bid as its maker stored it. */
export function makerBidView(b: DutchBidRow & { replaced?: boolean }): MakerBidView {
  return {
    bid_id: b.id,
    quote_id: b.quote_id,
    maker: b.maker,
    filler: b.filler,
    buy_override_bps: Number(b.buy_override_bps),
    sell_override_bps: Number(b.sell_override_bps),
    version: Number(b.version),
    replaced: Boolean(b.replaced ?? Number(b.version) > 1),
    bid_at: iso(b.bid_at),
  };
}
