import type { Hex } from 'viem';
import { z } from 'zod';
import { readDecimalUint, readUnixSeconds, MAX_TIMESTAMP, UINT256_MAX } from './integer-bounds';

/**
 * Field schemas of untrusted JSON bodies. Each refuses with one message that says what a valid
 * value looks like, so a 400 names every bad field in words a client can act on. Those that read
 * `unknown` carry their JSON Schema in `.meta()`: the API's documents are rendered from these
 * very schemas (api/http/schema-docs.ts documents a pipe from `unknown` as its output side).
 */

export const REQUIRED = 'is required';

/**
 * A field that must be present: missing and null are told `is required`, anything else goes to
 * `schema`. None of these checks aborts: the pipe stops at any issue anyway, and an aborting
 * issue would also silence the enclosing object's rules between its other fields.
 */
// `any` input: the piped schema takes whatever the presence check let through (zod's pipe needs
// its input type to accept `unknown`, which only `any` does for every schema).
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function required<S extends z.ZodType<unknown, any>>(schema: S) {
  return z
    .unknown()
    .refine((v) => v !== undefined && v !== null, REQUIRED)
    .pipe(schema);
}

/** A JSON boolean; strings like "true" are refused. */
export const booleanField = z.boolean({ message: 'must be true or false' });

/** 32 bytes of hex, returned lower-case. */
export const bytes32 = z
  .string({ message: 'must be 0x followed by 64 hex digits' })
  .regex(/^0x[0-9a-fA-F]{64}$/, 'must be 0x followed by 64 hex digits')
  .transform((v) => v.toLowerCase() as Hex);

/** A decimal integer string in [min, max] (uint256 unless told); JSON numbers are refused because they lose precision. */
export const decimalUint = (opts: { min?: bigint; max?: bigint; what?: string } = {}) =>
  z
    .unknown()
    .transform((v, ctx) => {
      const r = readDecimalUint(v, opts);
      if ('value' in r) return r.value;
      ctx.addIssue({ code: 'custom', message: r.problem });
      return z.NEVER;
    })
    .meta({
      type: 'string',
      pattern: '^(0|[1-9][0-9]{0,77})$',
      description: `Decimal integer string (no sign, spaces or leading zeros) from ${opts.min ?? 0n} to ${opts.max ?? UINT256_MAX} (${opts.what ?? 'uint256'}).`,
    });

/** Unix seconds as a JSON integer (or its decimal string), within uint40. */
export const unixSeconds = z
  .unknown()
  .transform((v, ctx) => {
    const n = readUnixSeconds(v);
    if (n !== undefined) return n;
    ctx.addIssue({ code: 'custom', message: `must be an integer of unix seconds between 0 and ${MAX_TIMESTAMP}` });
    return z.NEVER;
  })
  .meta({
    anyOf: [
      { type: 'integer', minimum: 0, maximum: MAX_TIMESTAMP },
      { type: 'string', pattern: '^(0|[1-9][0-9]{0,15})$' },
    ],
    description: `Unix seconds (uint40, at most ${MAX_TIMESTAMP}): a JSON integer, or its decimal string.`,
  });

/** A value given by any of its spellings (strings in any case), mapped to its one meaning. */
export function spelledAs<T>(spellings: readonly (readonly [string | number, T])[], message: string) {
  const byKey = new Map<unknown, T>(spellings);
  return z
    .unknown()
    .transform((v, ctx) => {
      const hit = byKey.get(typeof v === 'string' ? v.toLowerCase() : v);
      if (hit !== undefined) return hit;
      ctx.addIssue({ code: 'custom', message });
      return z.NEVER;
    })
    .meta({ enum: spellings.map(([spelling]) => spelling), description: `Strings in any case: ${message.replace(/^must be /, '')}.` });
}

/**
 * An array of `min` to `max` items. The length is checked before any item is read, so an
 * oversized array costs nothing and is told only that it is too long.
 */
export function sizedArray<S extends z.ZodType>(item: S, min: number, max: number) {
  const count = min === max ? `must have exactly ${min} items` : `must have between ${min} and ${max} items`;
  return z
    .array(z.unknown(), { message: 'must be an array' })
    .refine((a) => a.length >= min && a.length <= max, count)
    .pipe(z.array(item))
    .meta({ minItems: min, maxItems: max });
}
