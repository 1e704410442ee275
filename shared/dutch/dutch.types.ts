import type { JsonValue } from '../events';
import type { DutchPhase } from '../quotes';

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
  exclusive_salt: `0x${string}` | null;
  winner: `0x${string}` | null;
}

/** A maker's both-side bid on a Dutch quote; a later bid by the same maker replaces it (version + 1). */
export interface DutchBidRow {
  id: string;
  quote_id: string;
  maker: `0x${string}`;
  buy_override_bps: number;
  sell_override_bps: number;
  version: number;
  bid_at: Date;
}
