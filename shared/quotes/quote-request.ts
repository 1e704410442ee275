import { z } from 'zod';
import { intentListSchema, polaritySchema } from '../protocol';
import {
  addressOrZero,
  CHAIN_ID,
  evmAddress,
  intSchema,
  parsedAt,
  parseOrThrow,
  rebuiltWhenChanged,
  required,
  ruleIssue,
  unknownKeys,
  whenObject,
} from '../platform/validation';
import { acceptedQuoteRequest } from './quote-request-check';
import type { QuoteRequest } from './quote.types';

/** A standard RFQ create, parsed (declared in quote.types.ts, which the fast check shares). */
export type { QuoteRequest };

export interface QuoteRequestLimits {
  /** Unix seconds. */
  now: number;
  maxExpiresIn: number;
}

const OFFER_FORMATS = ['package_only', 'legByLegOnly', 'dutch_only'] as const;

/** The upper bound of QUOTE_MAX_EXPIRES_IN (shared/platform/config/quotes.config.ts). */
export const QUOTE_MAX_EXPIRES_IN_LIMIT = 86_400;

/** The create body at `now`, with windows of at most `maxExpiresIn` seconds. */
function quoteRequestSchema(now: number, maxExpiresIn: number) {
  const shape = {
    chain_id: required(intSchema(CHAIN_ID)).meta({ description: 'A known network (GET /api/networks).' }),
    taker_address: required(evmAddress).meta({
      description: 'Wallet that will call executeFixedPackageIntent; hashed into taker_address_hash, never shown to makers.',
    }),
    polarity: required(polaritySchema).meta({ description: '`b_is_buy` buys (long) the strategy, `a_is_buy` sells it.' }),
    referrer: addressOrZero.meta({ description: 'Absent or null is the zero address; hashed into taker_address_hash, never shown to makers.' }),
    // Required, as the spec's table says: a silent default would hide a client's missing field.
    expires_in: required(intSchema({ min: 1, max: maxExpiresIn, message: `must be an integer number of seconds from 1 to ${maxExpiresIn}` })).meta({
      description: 'Quote window in seconds, at most QUOTE_MAX_EXPIRES_IN (default 300), ending before the options expire.',
    }),
    offer_formats: z
      .enum(OFFER_FORMATS, { message: `must be one of ${OFFER_FORMATS.join(', ')}` })
      .optional()
      .meta({
        description:
          '`legByLegOnly` is stored as package_only; `dutch_only` selects the Dutch request (docs/DUTCH.md: directions, taker_signature, dutch_request, compete_ms, exclusive_ms / exclusive_seconds instead of polarity, referrer and intents).',
      }),
    intents: required(intentListSchema(now, 'intents')).meta({ description: "The legs, following the spec's strategy recipes." }),
    // A present dutch_request selects the Dutch schema (shared/dutch/dutch-quote-request.ts); a null one is no Dutch request.
    dutch_request: z.null().optional().meta({ description: 'Present: the body is a Dutch request (docs/DUTCH.md), parsed by its own schema.' }),
  };
  const known = new Set(Object.keys(shape));
  return z
    .looseObject(shape, { message: 'must be a JSON object' })
    .superRefine((b, ctx) => {
      unknownKeys(ctx, b, known, 'is not a field of a quote request');
      // A quote window that outlives the options could only collect offers that can never settle.
      if (!parsedAt(ctx, ['expires_in']) || !parsedAt(ctx, ['intents', 0, 'expiry_timestamp'])) return;
      const expiry = b.intents[0].expiry_timestamp;
      if (expiry > now && now + b.expires_in > expiry) {
        ruleIssue(ctx, ['expires_in'], `the quote window would end after the options expire (${expiry}); use at most ${Math.max(0, expiry - now)} seconds`);
      }
    }, whenObject)
    .meta({ additionalProperties: false, description: 'A standard RFQ; unknown fields are refused.' });
}

/**
 * The create body as the API documents it: the parser itself, read at no particular time (the
 * clock-bound rules, expiries in the future, are stated in the field descriptions) and with the
 * largest window an operator may allow.
 */
export const quoteRequestDocument = quoteRequestSchema(0, QUOTE_MAX_EXPIRES_IN_LIMIT);

const schemaAt = rebuiltWhenChanged(quoteRequestSchema);

/**
 * Parses `POST /api/quote`'s standard body, reporting every bad field at once (a Dutch body
 * goes to parseDutchQuoteRequest of shared/dutch/dutch-quote-request.ts; see isDutchRequest there). `legByLegOnly` is accepted and ignored
 * (standard quotes are stored as package_only). A body the fast check accepts is answered by it
 * (quote-request-check.ts); any other is the schema's to parse or refuse.
 */
export function parseQuoteRequest(body: unknown, limits: QuoteRequestLimits): QuoteRequest {
  return acceptedQuoteRequest(body, limits.now, limits.maxExpiresIn) ?? parseQuoteRequestBySchema(body, limits);
}

/** The same body parsed by the schema alone: the contract the fast check is held to, and the 400 of a refused body. */
export function parseQuoteRequestBySchema(body: unknown, limits: QuoteRequestLimits): QuoteRequest {
  const b = parseOrThrow(schemaAt(limits.now, limits.maxExpiresIn), body);
  return { chain_id: b.chain_id, taker_address: b.taker_address, polarity: b.polarity, referrer: b.referrer, expires_in: b.expires_in, intents: b.intents };
}
