import { getAddress, isAddress, zeroAddress, type Address } from 'viem';
import { MAX_LEGS, OPTION_TYPE_SPELLINGS, POLARITIES, STRUCTURE_SPELLINGS, type Intent, type OptionType, type Polarity, type Structure } from '../protocol';
import { CHAIN_ID, inRange, readDecimalUint, readUnixSeconds, UINT144_MAX } from '../platform/validation';
import type { QuoteRequest } from './quote.types';

/**
 * The standard create body's schema (quote-request.ts) decided without zod, for the bodies it
 * accepts. zod walks a tree of parsers, pipes and refinements, collecting issues and paths for
 * the 400 a refused body may need; a create that is accepted pays for all of that and reads none
 * of it. This check reads the same fields with the same readers (address checksum, decimal and
 * unix-second readers, spellings, integer ranges) and the same rules, and answers the parsed
 * request, or undefined at the first thing it would not accept. Undefined is never an answer to
 * the client: the caller then parses with the schema, which accepts what this check did not
 * bother with or writes the 400 naming every bad field. The schema stays the contract and the
 * source of every message; test/unit/quotes/quote-request-check.test.ts proves on the fuzz
 * corpus that both accept the same bodies and give the same result.
 */

/** The keys of the schema's shape: any other key is refused there. */
const KNOWN = new Set(['chain_id', 'taker_address', 'polarity', 'referrer', 'expires_in', 'offer_formats', 'intents', 'dutch_request']);
const OFFER_FORMATS = new Set<unknown>(['package_only', 'legByLegOnly', 'dutch_only']);
const POLARITY = new Set<unknown>(POLARITIES);
const OPTION_TYPES = new Map<unknown, OptionType>(OPTION_TYPE_SPELLINGS);
const STRUCTURES = new Map<unknown, Structure>(STRUCTURE_SPELLINGS);
const STRIKE = { min: 1n, max: UINT144_MAX, what: 'uint144' };
const AMOUNT = { min: 1n, what: 'uint256' };

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** evmAddress: a string of 0x and 40 hex digits in any case, answered checksummed. */
function address(v: unknown): Address | undefined {
  return typeof v === 'string' && isAddress(v, { strict: false }) ? getAddress(v) : undefined;
}

/** spelledAs: a string in any case, or a number, mapped to its one meaning. */
function spelled<T>(spellings: ReadonlyMap<unknown, T>, v: unknown): T | undefined {
  return spellings.get(typeof v === 'string' ? v.toLowerCase() : v);
}

function bigUint(v: unknown, opts: { min: bigint; max?: bigint; what: string }): bigint | undefined {
  const r = readDecimalUint(v, opts);
  return 'value' in r ? r.value : undefined;
}

/** One leg, with its own rules: expiry after `now`, exercise American (0) or European (= expiry). Unknown keys of a leg are dropped, as the schema's object drops them. */
function leg(v: unknown, now: number): Intent | undefined {
  if (!isRecord(v)) return undefined;
  const pair = address(v.pair6909_contract);
  const optionType = spelled(OPTION_TYPES, v.option_type);
  const structure = spelled(STRUCTURES, v.structure);
  const strike = bigUint(v.strike_wad, STRIKE);
  const amount = bigUint(v.amount, AMOUNT);
  const expiry = readUnixSeconds(v.expiry_timestamp);
  const start = readUnixSeconds(v.start_exercise_timestamp);
  if (pair === undefined || optionType === undefined || structure === undefined || strike === undefined || amount === undefined) return undefined;
  if (expiry === undefined || start === undefined || expiry <= now || (start !== 0 && start !== expiry)) return undefined;
  return {
    pair6909_contract: pair,
    option_type: optionType,
    structure,
    strike_wad: strike,
    amount,
    expiry_timestamp: expiry,
    start_exercise_timestamp: start,
  };
}

/** 1 to MAX_LEGS legs on one pair and one expiry. */
function legs(v: unknown, now: number): Intent[] | undefined {
  if (!Array.isArray(v) || v.length < 1 || v.length > MAX_LEGS) return undefined;
  const out: Intent[] = [];
  for (const item of v as unknown[]) {
    const l = leg(item, now);
    if (l === undefined) return undefined;
    if (out.length > 0 && (l.pair6909_contract !== out[0].pair6909_contract || l.expiry_timestamp !== out[0].expiry_timestamp)) return undefined;
    out.push(l);
  }
  return out;
}

/**
 * The standard create body at `now` (unix seconds) with windows of at most `maxExpiresIn`
 * seconds, parsed as the schema parses it; undefined when the schema must decide (it refuses
 * the body, or this check does not know it accepts it).
 */
export function acceptedQuoteRequest(body: unknown, now: number, maxExpiresIn: number): QuoteRequest | undefined {
  if (!isRecord(body)) return undefined;
  // A `__proto__` key (JSON.parse makes it an own key) passes as it passes the schema: zod copies
  // the body into a fresh object, where it sets the copy's prototype instead of adding a key its
  // unknown-key rule would see. Neither side reads it.
  for (const key of Object.keys(body)) if (!KNOWN.has(key) && key !== '__proto__') return undefined;
  const chainId = body.chain_id;
  const expiresIn = body.expires_in;
  if (!inRange(chainId, CHAIN_ID) || !inRange(expiresIn, { min: 1, max: maxExpiresIn, message: '' })) return undefined;
  const polarity = body.polarity;
  if (!POLARITY.has(polarity)) return undefined;
  if (body.offer_formats !== undefined && !OFFER_FORMATS.has(body.offer_formats)) return undefined;
  if (body.dutch_request !== undefined && body.dutch_request !== null) return undefined;
  const taker = address(body.taker_address);
  const referrer = body.referrer === undefined || body.referrer === null ? zeroAddress : address(body.referrer);
  if (taker === undefined || referrer === undefined) return undefined;
  const intents = legs(body.intents, now);
  // A quote window that outlives the options is refused (every leg's expiry is after `now` here).
  if (intents === undefined || now + expiresIn > intents[0].expiry_timestamp) return undefined;
  return { chain_id: chainId, taker_address: taker, polarity: polarity as Polarity, referrer, expires_in: expiresIn, intents };
}
