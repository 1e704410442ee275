import { zeroAddress, type Address } from 'viem';
import { NotImplementedError } from '../platform/errors';
import { Problems, readIntentList, readPolarity, type Intent, type Polarity } from '../protocol';
import { isRecord, readAddress } from '../protocol/fields';
import { CHAIN_ID, inRange } from '../platform/validation';

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
const KNOWN_FIELDS = new Set(['chain_id', 'taker_address', 'polarity', 'referrer', 'expires_in', 'offer_formats', 'intents', 'dutch_request']);

/**
 * Parses `POST /api/quote`'s body, reporting every bad field at once. A Dutch create
 * (`offer_formats: dutch_only` or a `dutch_request`) is refused with 501 until the Dutch flow
 * exists; `legByLegOnly` is accepted and ignored (standard quotes are stored as package_only).
 */
export function parseQuoteRequest(body: unknown, limits: QuoteRequestLimits): QuoteRequest {
  const problems = new Problems();
  if (!isRecord(body)) {
    problems.add('(body)', 'must be a JSON object');
    problems.throwIfAny();
  }
  const b = body as Record<string, unknown>;
  if (b.offer_formats === 'dutch_only' || (b.dutch_request !== undefined && b.dutch_request !== null)) {
    throw new NotImplementedError('Dutch auctions (offer_formats "dutch_only") are not available yet; create a standard quote', 'dutch_not_available');
  }
  for (const key of Object.keys(b)) if (!KNOWN_FIELDS.has(key)) problems.add(key, 'is not a field of a quote request');

  const present = (key: string) => {
    if (b[key] === undefined || b[key] === null) {
      problems.add(key, 'is required');
      return false;
    }
    return true;
  };

  const chainId = b.chain_id;
  if (present('chain_id') && !inRange(chainId, CHAIN_ID)) problems.add('chain_id', CHAIN_ID.message);
  const taker = present('taker_address') ? readAddress(b.taker_address, 'taker_address', problems) : undefined;
  const polarity = present('polarity') ? readPolarity(b.polarity, 'polarity', problems) : undefined;
  const referrer = b.referrer === undefined || b.referrer === null ? zeroAddress : readAddress(b.referrer, 'referrer', problems);

  // Required, as the spec's table says: a silent default would hide a client's missing field.
  let expiresIn = 0;
  if (present('expires_in')) {
    const e = b.expires_in;
    if (typeof e !== 'number' || !Number.isInteger(e) || e < 1 || e > limits.maxExpiresIn) {
      problems.add('expires_in', `must be an integer number of seconds from 1 to ${limits.maxExpiresIn}`);
    } else expiresIn = e;
  }
  if (b.offer_formats !== undefined && !(OFFER_FORMATS as readonly unknown[]).includes(b.offer_formats)) {
    problems.add('offer_formats', `must be one of ${OFFER_FORMATS.join(', ')}`);
  }
  const legs = present('intents') ? readIntentList(b.intents, 'intents', problems, limits.now) : [];
  // A quote window that outlives the options could only collect offers that can never settle.
  const expiry = legs[0]?.expiry_timestamp;
  if (expiry !== undefined && expiry > limits.now && !problems.has('expires_in') && limits.now + expiresIn > expiry) {
    problems.add('expires_in', `the quote window would end after the options expire (${expiry}); use at most ${Math.max(0, expiry - limits.now)} seconds`);
  }
  problems.throwIfAny();
  return {
    chain_id: chainId as number,
    taker_address: taker as Address,
    polarity: polarity as Polarity,
    referrer: referrer as Address,
    expires_in: expiresIn,
    intents: legs as Intent[],
  };
}
