import { z } from 'zod';
import { ValidationError } from '../errors/app-error';

/**
 * Every integer the service accepts, bounded by where it ends up: a Postgres column (int2,
 * int4, int8, numeric(78,0)) or a Solidity type (uint8, uint40, uint144, uint256). A value that
 * passes here always fits its column, so bad numbers are a 400 naming the field, never a
 * database error turned 500. Schemas and hand-written readers both take their bounds from here.
 */

/** Solidity widths of the on-chain protocol (docs/PROTOCOL.md). */
export const UINT8_MAX = 255n;
export const UINT40_MAX = (1n << 40n) - 1n;
export const UINT144_MAX = (1n << 144n) - 1n;
export const UINT256_MAX = (1n << 256n) - 1n;
/** Timestamps are uint40 on chain: unix seconds up to the year 36812. */
export const MAX_TIMESTAMP = Number(UINT40_MAX);

/** Postgres `smallint`. */
export const PG_INT2_MAX = 32_767;
/** Postgres `integer`: chain ids and log indexes are stored in this width. */
export const PG_INT4_MAX = 2_147_483_647;
/** Postgres `bigint` holds any JS safe integer, so safe-integer bounds are enough for int8 columns. */
export const PG_INT8_SAFE_MAX = Number.MAX_SAFE_INTEGER;

/** A JSON-number range and the one message that states it. */
export interface IntRange {
  readonly min: number;
  readonly max: number;
  readonly message: string;
}

export function intRange(min: number, max: number, noun?: string): IntRange {
  return { min, max, message: `must be ${noun ? `${noun}: ` : ''}an integer from ${min} to ${max}` };
}

/** Chain ids: the contract keys networks by an `integer` column. */
export const CHAIN_ID = intRange(1, PG_INT4_MAX, 'a chain id');
/** Unix seconds: uint40 on chain, `bigint` in Postgres. */
export const UNIX_SECONDS = intRange(0, MAX_TIMESTAMP, 'unix seconds');
/** uint8 on chain (token decimals, enums). */
export const UINT8 = intRange(0, Number(UINT8_MAX), 'a uint8');

/** True when `v` is a JSON integer inside `r`. */
export function inRange(v: unknown, r: IntRange): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v >= r.min && v <= r.max;
}

/** A JSON integer inside `r`. */
export const intSchema = (r: IntRange) =>
  z
    .number({ message: r.message })
    .refine((v) => inRange(v, r), r.message)
    .meta({ type: 'integer', minimum: r.min, maximum: r.max });

/**
 * The same range read from a query string: plain decimal digits only (no sign, exponent, blank
 * or leading zero), so `?chain_id=031337` is refused rather than silently read as 31337. A
 * repeated parameter arrives as an array and is refused too.
 */
export const intQuerySchema = (r: IntRange) =>
  z
    .string({ message: `${r.message}, given once` })
    .refine((v) => /^(0|[1-9][0-9]{0,15})$/.test(v) && inRange(Number(v), r), r.message)
    .transform(Number)
    .meta({ pattern: '^(0|[1-9][0-9]{0,15})$', description: `Plain decimal digits, given once: ${r.message.replace(/^must be /, '')}.` });

export const chainIdSchema = intSchema(CHAIN_ID).meta({ description: 'A known network (GET /api/networks).' });

/** `?chain_id=` of the public read routes: optional, one value. */
export const chainIdQuery = z.object({
  chain_id: intQuerySchema(CHAIN_ID).optional().meta({ description: 'Limits the answer to one known network (plain decimal digits, given once).' }),
});

/**
 * The `chain_id` of a POST route that takes it in the query or in the JSON body, the same way on
 * every such route (the Explore stream mints): `?chain_id=31337`, or `{"chain_id": 31337}`, or
 * both when they agree. The body may be absent or `{}`.
 */
export const chainIdBody = z
  .strictObject({ chain_id: chainIdSchema.optional().meta({ description: 'The network; may be given in the query instead (or in both, equal).' }) })
  .optional();

/** The chain id of such a route from its parsed query and body; both given and different is a 400 naming `chain_id`. */
export function chainIdOfQueryOrBody(query: { chain_id?: number }, body: { chain_id?: number } | undefined): number | undefined {
  const fromBody = body?.chain_id;
  if (query.chain_id !== undefined && fromBody !== undefined && query.chain_id !== fromBody) {
    throw ValidationError.field('chain_id', `given twice with different values (query ${query.chain_id}, body ${fromBody}): give it once, or the same in both`);
  }
  return query.chain_id ?? fromBody;
}

const DECIMAL = /^(0|[1-9][0-9]*)$/;

/** The longest decimal string worth reading: uint256 has 78 digits. */
const MAX_DECIMAL_DIGITS = 80;

/**
 * Reads an unsigned integer given as a decimal string (JSON numbers lose precision past 2^53,
 * so big integers travel as strings) and checks it lies in [min, max]. Returns the value, or
 * the message that says what is wrong.
 */
export function readDecimalUint(v: unknown, opts: { min?: bigint; max?: bigint; what?: string } = {}): { value: bigint } | { problem: string } {
  const { min = 0n, max = UINT256_MAX, what = 'uint256' } = opts;
  if (typeof v !== 'string') return { problem: 'must be a decimal integer string' };
  if (!DECIMAL.test(v) || v.length > MAX_DECIMAL_DIGITS) {
    return { problem: 'must be a decimal integer string without sign, spaces or leading zeros' };
  }
  const n = BigInt(v);
  if (n < min || n > max) return { problem: min > 0n ? `must be between ${min} and ${max} (${what})` : `must fit ${what} (at most ${max})` };
  return { value: n };
}

/** A non-negative integer as a decimal string, at most `max`; the parsed value stays a string. */
export const uintString = (max: bigint = UINT256_MAX, what = 'uint256') =>
  z.string({ message: 'must be a decimal integer string' }).superRefine((v, ctx) => {
    const r = readDecimalUint(v, { max, what });
    if ('problem' in r) ctx.addIssue({ code: 'custom', message: r.problem });
  });

/**
 * Unix seconds as a JSON integer, or its decimal string (some clients send every number as a
 * string); returns the number or undefined when it is not one inside UNIX_SECONDS.
 */
export function readUnixSeconds(v: unknown): number | undefined {
  const n = typeof v === 'string' && DECIMAL.test(v) && v.length <= 16 ? Number(v) : v;
  return inRange(n, UNIX_SECONDS) ? n : undefined;
}
