import type { Address } from 'viem';
import { z } from 'zod';
import { NotImplementedError } from '../platform/errors';
import { intentListSchema, polaritySchema, type Intent, type Polarity } from '../protocol';
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

/** A standard RFQ create, parsed: every field normalised. */
export interface QuoteRequest {
  chain_id: number;
  taker_address: Address;
  polarity: Polarity;
  referrer: Address;
  expires_in: number;
  intents: Intent[];
}

export interface QuoteRequestLimits {
  /** Unix seconds. */
  now: number;
  maxExpiresIn: number;
}

const OFFER_FORMATS = ['package_only', 'legByLegOnly', 'dutch_only'] as const;

/** The create body at `now`, with windows of at most `maxExpiresIn` seconds. */
function quoteRequestSchema(now: number, maxExpiresIn: number) {
  const shape = {
    chain_id: required(intSchema(CHAIN_ID)),
    taker_address: required(evmAddress),
    polarity: required(polaritySchema),
    referrer: addressOrZero,
    // Required, as the spec's table says: a silent default would hide a client's missing field.
    expires_in: required(intSchema({ min: 1, max: maxExpiresIn, message: `must be an integer number of seconds from 1 to ${maxExpiresIn}` })),
    offer_formats: z.enum(OFFER_FORMATS, { message: `must be one of ${OFFER_FORMATS.join(', ')}` }).optional(),
    intents: required(intentListSchema(now, 'intents')),
    // Dutch creates are answered 501 before validation; a null one is no Dutch request.
    dutch_request: z.null().optional(),
  };
  const known = new Set(Object.keys(shape));
  return z.looseObject(shape, { message: 'must be a JSON object' }).superRefine((b, ctx) => {
    unknownKeys(ctx, b, known, 'is not a field of a quote request');
    // A quote window that outlives the options could only collect offers that can never settle.
    if (!parsedAt(ctx, ['expires_in']) || !parsedAt(ctx, ['intents', 0, 'expiry_timestamp'])) return;
    const expiry = b.intents[0].expiry_timestamp;
    if (expiry > now && now + b.expires_in > expiry) {
      ruleIssue(ctx, ['expires_in'], `the quote window would end after the options expire (${expiry}); use at most ${Math.max(0, expiry - now)} seconds`);
    }
  }, whenObject);
}

const schemaAt = rebuiltWhenChanged(quoteRequestSchema);

const isDutch = (body: unknown): boolean => {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
  const b = body as Record<string, unknown>;
  return b.offer_formats === 'dutch_only' || (b.dutch_request !== undefined && b.dutch_request !== null);
};

/**
 * Parses `POST /api/quote`'s body, reporting every bad field at once. A Dutch create
 * (`offer_formats: dutch_only` or a `dutch_request`) is refused with 501 until the Dutch flow
 * exists; `legByLegOnly` is accepted and ignored (standard quotes are stored as package_only).
 */
export function parseQuoteRequest(body: unknown, limits: QuoteRequestLimits): QuoteRequest {
  if (isDutch(body)) {
    throw new NotImplementedError('Dutch auctions (offer_formats "dutch_only") are not available yet; create a standard quote', 'dutch_not_available');
  }
  const b = parseOrThrow(schemaAt(limits.now, limits.maxExpiresIn), body);
  return { chain_id: b.chain_id, taker_address: b.taker_address, polarity: b.polarity, referrer: b.referrer, expires_in: b.expires_in, intents: b.intents };
}
