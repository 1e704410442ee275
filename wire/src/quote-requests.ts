import type { IntentJson } from './protocol/intents';

/*
 * The bodies of POST /api/quote (a standard RFQ) and POST /api/quote/:id (a package offer) as a
 * client sends them. The server parses them with its own clock- and config-bound parsers
 * (shared/quotes/quote-request.ts, offer-request.ts); api/routes/quote.http.ts checks at
 * compile time that every body typed here is one those parsers accept.
 */

/** A leg as a client may send it: `option_type` also as "call" or "put", `structure` also as "a" or "b". */
export type IntentInput = Omit<IntentJson, 'option_type' | 'structure'> & { option_type: 0 | 1 | 'call' | 'put'; structure: 0 | 1 | 'a' | 'b' };

/** POST /api/quote, a standard RFQ (docs/QUOTES.md). */
export type QuoteRequestBody = {
  chain_id: number;
  taker_address: string;
  polarity: 'b_is_buy' | 'a_is_buy';
  referrer?: string | null;
  expires_in: number;
  offer_formats?: 'package_only' | 'dutch_only';
  intents: IntentInput[];
};

/** POST /api/quote/:id: a signed package offer (docs/PROTOCOL.md). */
export type PackageOfferBody = {
  offer_type: 'package';
  package_premium: string;
  maker_pays_taker?: boolean;
  taker_address_hash: string;
  premium_token: string;
  legs: IntentInput[];
  maker: string;
  nonce: string;
  deadline: number;
  signature: string;
};
