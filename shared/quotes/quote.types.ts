import type { OFFER_FORMATS, QuoteState } from '../../wire/src/quote.wire';
import type { Polarity } from '../../wire/src/protocol/constants';
import type { Intent } from '../../wire/src/protocol/intents';

/** Quote states (docs/QUOTES.md, "States"): the list QUOTE_STATES in quote.wire.ts (open -> expired | filled | cancelled). */
export type { QuoteState, Polarity };

/** A standard RFQ create, parsed: every field normalised. */
export interface QuoteRequest {
  chain_id: number;
  taker_address: `0x${string}`;
  polarity: Polarity;
  referrer: `0x${string}`;
  expires_in: number;
  intents: Intent[];
}

export interface QuoteLegRow {
  idx: number;
  option_type: 0 | 1;
  structure: 0 | 1;
  direction: 0 | 1;
  strike_wad: string;
  amount: string;
  start_exercise_timestamp: number;
  expiry_timestamp: number;
}

export interface QuoteRow {
  id: string;
  chain_id: number;
  state: QuoteState;
  offer_format: (typeof OFFER_FORMATS)[number];
  polarity: Polarity;
  strategy: string;
  taker_address: `0x${string}`;
  referrer: `0x${string}`;
  taker_salt: `0x${string}`;
  taker_address_hash: `0x${string}`;
  directions: number[];
  pair_contract: `0x${string}`;
  expiry_timestamp: number;
  stream_token_hash: string;
  expires_at: Date;
  created_at: Date;
  closed_at: Date | null;
  fill_tx_hash: string | null;
  /** When the quote's rfq_request went out (or was given up as stale); null until then. Read from the table, absent on a row being built. */
  announced_at?: Date | null;
}

export interface OfferRow {
  id: string;
  quote_id: string;
  chain_id: number;
  maker: `0x${string}`;
  offer_type: 'package';
  package_premium: string;
  maker_pays_taker: boolean;
  premium_token: `0x${string}`;
  nonce: string;
  deadline: number;
  signature: `0x${string}`;
  digest: `0x${string}`;
  created_at: Date;
}
