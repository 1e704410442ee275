import { getAddress, isAddress, type Address, type Hex } from 'viem';
import { readDecimalUint, readUnixSeconds } from '../platform/validation/integer-bounds';
import { MAX_TIMESTAMP } from './constants';
import type { Problems } from './problems';

/**
 * Readers of single untrusted JSON fields. Each returns the parsed value, or undefined after
 * recording why it is wrong, so a parser can carry on and report every bad field.
 */

/** A plain JSON object (not null, not an array). */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** An address in any case, returned checksummed. */
export function readAddress(v: unknown, path: string, problems: Problems): Address | undefined {
  if (typeof v !== 'string' || !isAddress(v, { strict: false })) {
    problems.add(path, 'must be a 0x-prefixed 20-byte hex address');
    return undefined;
  }
  return getAddress(v);
}

/** A decimal integer string in [min, max]; numbers are refused because JSON numbers lose precision. */
export function readUint(
  v: unknown,
  path: string,
  problems: Problems,
  opts: { min?: bigint; max?: bigint; what?: string } = {},
): bigint | undefined {
  const r = readDecimalUint(v, opts);
  if ('problem' in r) {
    problems.add(path, r.problem);
    return undefined;
  }
  return r.value;
}

/** Unix seconds as a JSON integer (or its decimal string), within uint40. */
export function readTimestamp(v: unknown, path: string, problems: Problems): number | undefined {
  const n = readUnixSeconds(v);
  if (n === undefined) problems.add(path, `must be an integer of unix seconds between 0 and ${MAX_TIMESTAMP}`);
  return n;
}

/** 32 bytes of hex, returned lower-case. */
export function readBytes32(v: unknown, path: string, problems: Problems): Hex | undefined {
  if (typeof v !== 'string' || !/^0x[0-9a-fA-F]{64}$/.test(v)) {
    problems.add(path, 'must be 0x followed by 64 hex digits');
    return undefined;
  }
  return v.toLowerCase() as Hex;
}

/** A JSON boolean; strings like "true" are refused. */
export function readBoolean(v: unknown, path: string, problems: Problems): boolean | undefined {
  if (typeof v !== 'boolean') {
    problems.add(path, 'must be true or false');
    return undefined;
  }
  return v;
}

/** An array field of at least `min` and at most `max` items. */
export function readArray(v: unknown, path: string, problems: Problems, min: number, max: number): unknown[] | undefined {
  if (!Array.isArray(v)) {
    problems.add(path, 'must be an array');
    return undefined;
  }
  if (v.length < min || v.length > max) {
    problems.add(path, min === max ? `must have exactly ${min} items` : `must have between ${min} and ${max} items`);
    return undefined;
  }
  return v;
}
