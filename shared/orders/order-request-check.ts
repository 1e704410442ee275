import { getAddress, isAddress, type Address } from 'viem';
import { CHAIN_ID, inRange, intRange, readDecimalUint, readUnixSeconds, UINT144_MAX, UINT256_MAX, type IntRange } from '../platform/validation';
import { MAX_DECAY_BPS_PER_SECOND } from '../../wire/src/order-bodies';

/**
 * `POST /api/orders`'s body schema (order-request.ts) decided without zod, for the bodies it
 * accepts: the order create's counterpart of shared/quotes/quote-request-check.ts. zod walks a
 * tree of pipes, transforms and refinements and keeps every issue's path for a 400 an accepted
 * create never sends; this check reads the same fields with the same readers (viem's address
 * check and checksum, `readDecimalUint`, `readUnixSeconds`, `inRange`) and the same rules between
 * fields, and answers the body as the schema parses it, or undefined at the first thing it would
 * not accept. Undefined is never an answer to the client: the caller then parses with the schema,
 * which accepts what this check did not bother with or writes the 400 naming every bad field.
 * The schema stays the contract and the source of every message; the parsed body becomes an
 * OrderRequest in order-request.ts alone, whichever side read it.
 * test/unit/orders/order-request-check.test.ts proves on the fuzz corpus that both accept the
 * same bodies with the same result.
 */

/** The order body as the schema parses it: addresses checksummed, big integers read, timestamps as numbers. */
export interface ParsedOrderBody {
  chain_id: number;
  amount: bigint;
  destination: { from: Address; to: Address; nonce: { prefix: number; nonce: bigint } };
  data: {
    options6909Contract: Address;
    rewardLimits: { fillerRewardMaxPerMintedUnit: bigint; fillerRewardMinPerMintedUnit: bigint };
    pairKey: { optionType: number; startExecutionTimeStamp: number; expiryTimestamp: number };
    decayPremium: { premiumStart: bigint; premiumEnd: bigint; decayRateBpsPerSecond: number };
    decayStrike: { strikeStart: bigint; strikeEnd: bigint; decayRateBpsPerSecond: number };
    decayMinFill: { startMinFill: bigint; decayRatePerSecond: bigint };
    buyOrSell: number;
    intentStartTime: number;
    intentExpiry: number;
    orderOnExpiry: number;
  };
}

/** The keys of each object's shape: any other key is refused there. */
const keys = (...names: string[]) => new Set(names);
const BODY = keys('chain_id', 'amount', 'destination', 'data');
const DESTINATION = keys('from', 'to', 'nonce');
const NONCE = keys('prefix', 'nonce');
const DATA = keys(
  'options6909Contract',
  'rewardLimits',
  'pairKey',
  'decayPremium',
  'decayStrike',
  'decayMinFill',
  'buyOrSell',
  'intentStartTime',
  'intentExpiry',
  'orderOnExpiry',
);
const REWARD_LIMITS = keys('fillerRewardMaxPerMintedUnit', 'fillerRewardMinPerMintedUnit');
const PAIR_KEY = keys('optionType', 'startExecutionTimeStamp', 'expiryTimestamp');
const DECAY_PREMIUM = keys('premiumStart', 'premiumEnd', 'decayRateBpsPerSecond');
const DECAY_STRIKE = keys('strikeStart', 'strikeEnd', 'decayRateBpsPerSecond');
const DECAY_MIN_FILL = keys('startMinFill', 'decayRatePerSecond');

const PREFIX = intRange(0, Number.MAX_SAFE_INTEGER);
const ZERO_OR_ONE = intRange(0, 1);
const DECAY_RATE = intRange(0, MAX_DECAY_BPS_PER_SECOND);
const UINT256 = { min: 0n, max: UINT256_MAX, what: 'uint256' };
const AMOUNT = { min: 1n, max: UINT256_MAX, what: 'uint256' };
const STRIKE = { min: 1n, max: UINT144_MAX, what: 'uint144' };

/**
 * A JSON object whose every key is in `known` (the schema's strict shapes); fields missing are
 * refused where they are read. A `__proto__` key (JSON.parse makes it an own key) is let through
 * because the schema lets it through: zod copies an object's keys into a fresh object, where
 * assigning `__proto__` sets that copy's prototype instead of adding a key, so the schema's
 * unknown-key rule never sees it. Nothing reads it on either side: the parsed body is built from
 * the shape's own fields alone.
 */
function shaped(v: unknown, known: ReadonlySet<string>): Record<string, unknown> | undefined {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
  for (const key of Object.keys(v)) if (!known.has(key) && key !== '__proto__') return undefined;
  return v as Record<string, unknown>;
}

/** evmAddress: a string of 0x and 40 hex digits in any case, answered checksummed. */
function address(v: unknown): Address | undefined {
  return typeof v === 'string' && isAddress(v, { strict: false }) ? getAddress(v) : undefined;
}

/** intSchema: a JSON integer in range, answered as sent. */
function int(v: unknown, r: IntRange): number | undefined {
  return inRange(v, r) ? v : undefined;
}

/** The schema's `uint`: a decimal string, or a JSON integer that is exactly representable, in range. */
function uint(v: unknown, opts: { min: bigint; max: bigint; what: string }): bigint | undefined {
  const r = readDecimalUint(typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? String(v) : v, opts);
  return 'value' in r ? r.value : undefined;
}

/**
 * The order body at `now` (unix seconds), every timestamp at most `horizonSeconds` ahead, parsed
 * as the schema parses it; undefined when the schema must decide (it refuses the body, or this
 * check does not know it accepts it).
 */
export function acceptedOrderBody(body: unknown, now: number, horizonSeconds: number): ParsedOrderBody | undefined {
  const b = shaped(body, BODY);
  if (b === undefined) return undefined;
  const chainId = int(b.chain_id, CHAIN_ID);
  const amount = uint(b.amount, AMOUNT);
  const t = shaped(b.destination, DESTINATION);
  const d = shaped(b.data, DATA);
  if (chainId === undefined || amount === undefined || t === undefined || d === undefined) return undefined;

  const n = shaped(t.nonce, NONCE);
  if (n === undefined) return undefined;
  const prefix = int(n.prefix, PREFIX);
  const nonce = uint(n.nonce, UINT256);
  if (prefix === undefined || nonce === undefined) return undefined;

  const rl = shaped(d.rewardLimits, REWARD_LIMITS);
  const pk = shaped(d.pairKey, PAIR_KEY);
  const dp = shaped(d.decayPremium, DECAY_PREMIUM);
  const ds = shaped(d.decayStrike, DECAY_STRIKE);
  const dm = shaped(d.decayMinFill, DECAY_MIN_FILL);
  if (rl === undefined || pk === undefined || dp === undefined || ds === undefined || dm === undefined) return undefined;

  const rewardMax = uint(rl.fillerRewardMaxPerMintedUnit, UINT256);
  const rewardMin = uint(rl.fillerRewardMinPerMintedUnit, UINT256);
  const optionType = int(pk.optionType, ZERO_OR_ONE);
  const start = readUnixSeconds(pk.startExecutionTimeStamp);
  const expiry = readUnixSeconds(pk.expiryTimestamp);
  const premiumStart = uint(dp.premiumStart, UINT256);
  const premiumEnd = uint(dp.premiumEnd, UINT256);
  const premiumRate = int(dp.decayRateBpsPerSecond, DECAY_RATE);
  const strikeStart = uint(ds.strikeStart, STRIKE);
  const strikeEnd = uint(ds.strikeEnd, STRIKE);
  const strikeRate = int(ds.decayRateBpsPerSecond, DECAY_RATE);
  const startMinFill = uint(dm.startMinFill, UINT256);
  const minFillRate = uint(dm.decayRatePerSecond, UINT256);
  const buyOrSell = int(d.buyOrSell, ZERO_OR_ONE);
  const intentStart = readUnixSeconds(d.intentStartTime);
  const intentExpiry = readUnixSeconds(d.intentExpiry);
  const onExpiry = int(d.orderOnExpiry, ZERO_OR_ONE);
  if (
    rewardMax === undefined ||
    rewardMin === undefined ||
    optionType === undefined ||
    start === undefined ||
    expiry === undefined ||
    premiumStart === undefined ||
    premiumEnd === undefined ||
    premiumRate === undefined ||
    strikeStart === undefined ||
    strikeEnd === undefined ||
    strikeRate === undefined ||
    startMinFill === undefined ||
    minFillRate === undefined ||
    buyOrSell === undefined ||
    intentStart === undefined ||
    intentExpiry === undefined ||
    onExpiry === undefined
  ) {
    return undefined;
  }

  // The rules between fields (crossFieldRules of order-request.ts): every timestamp within the
  // horizon, a live European or American series, an intent window inside the option's life.
  const latest = now + horizonSeconds;
  if (expiry > latest || start > latest || intentStart > latest || intentExpiry > latest) return undefined;
  if (rewardMin > rewardMax || startMinFill > amount) return undefined;
  if (expiry <= now || (start !== 0 && start !== expiry)) return undefined;
  if (intentStart >= intentExpiry || intentExpiry <= now || intentExpiry > expiry) return undefined;

  const from = address(t.from);
  const to = address(t.to);
  const pair = address(d.options6909Contract);
  if (from === undefined || to === undefined || pair === undefined) return undefined;

  return {
    chain_id: chainId,
    amount,
    destination: { from, to, nonce: { prefix, nonce } },
    data: {
      options6909Contract: pair,
      rewardLimits: { fillerRewardMaxPerMintedUnit: rewardMax, fillerRewardMinPerMintedUnit: rewardMin },
      pairKey: { optionType, startExecutionTimeStamp: start, expiryTimestamp: expiry },
      decayPremium: { premiumStart, premiumEnd, decayRateBpsPerSecond: premiumRate },
      decayStrike: { strikeStart, strikeEnd, decayRateBpsPerSecond: strikeRate },
      decayMinFill: { startMinFill, decayRatePerSecond: minFillRate },
      buyOrSell,
      intentStartTime: intentStart,
      intentExpiry,
      orderOnExpiry: onExpiry,
    },
  };
}
