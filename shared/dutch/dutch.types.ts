import type { JsonValue } from '../events';
import type { QuoteLegRow, QuoteRow } from '../quotes';
import type { DutchPhase } from '../../wire/src/dutch.wire';

export type JsonObject = { [key: string]: JsonValue };

/** The Dutch columns of a quote row (docs/DUTCH.md). */
export interface DutchColumns {
  id: string;
  dutch_phase: DutchPhase;
  dutch_request: JsonObject;
  dutch_request_digest: `0x${string}`;
  taker_signature: `0x${string}`;
  compete_ends_at: Date;
  exclusive_ms: number;
  exclusive_ends_at: Date | null;
  awarded_at: Date | null;
  opened_at: Date | null;
  award: JsonObject | null;
  /** The winning maker (its private `rfq_maker` topic gets the award); the award names its filler. */
  winner: `0x${string}` | null;
}

/** A maker's both-side bid on a Dutch quote; a later bid by the same maker replaces it (version + 1). */
export interface DutchBidRow {
  id: string;
  quote_id: string;
  maker: `0x${string}`;
  /** The address that will call executeDutchFill if this bid wins (the maker's wallet unless the bid named another). */
  filler: `0x${string}`;
  buy_override_bps: number;
  sell_override_bps: number;
  version: number;
  bid_at: Date;
}

/** A Dutch quote as a batch decides and publishes it: the quote row, its Dutch columns, its legs. */
export interface DutchQuote {
  q: QuoteRow;
  d: DutchColumns;
  legs: QuoteLegRow[];
}

/** Where a Dutch quote stands: the one read a phase job makes before doing anything. */
export interface DutchProgress {
  id: string;
  state: QuoteRow['state'];
  dutch_phase: DutchPhase;
  compete_ends_at: Date;
  exclusive_ends_at: Date | null;
  exclusive_ms: number;
  expires_at: Date;
  awarded_at: Date | null;
  opened_at: Date | null;
  winner: `0x${string}` | null;
  /** The last phase whose payloads went out (null: none since the competition). */
  dutch_published_phase: Exclude<DutchPhase, 'competing'> | null;
}
