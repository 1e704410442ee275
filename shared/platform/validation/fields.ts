import type { Hex } from 'viem';
import { z } from 'zod';
import { readDecimalUint, readUnixSeconds, MAX_TIMESTAMP } from './integer-bounds';

/**
 * Field schemas of untrusted JSON bodies. Each refuses with one message that says what a valid
 * value looks like, so a 400 names every bad field in words a client can act on.
 */

export const REQUIRED = 'is required';

/**
 * A field that must be present: missing and null are told `is required`, anything else goes to
 * `schema`. None of these checks aborts: the pipe stops at any issue anyway, and an aborting
 * issue would also silence the enclosing object's rules between its other fields.
 */
// `any` input: the piped schema takes whatever the presence check let through.
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
  z.unknown().transform((v, ctx) => {
    const r = readDecimalUint(v, opts);
    if ('value' in r) return r.value;
    ctx.addIssue({ code: 'custom', message: r.problem });
    return z.NEVER;
  });

/** Unix seconds as a JSON integer (or its decimal string), within uint40. */
export const unixSeconds = z.unknown().transform((v, ctx) => {
  const n = readUnixSeconds(v);
  if (n !== undefined) return n;
  ctx.addIssue({ code: 'custom', message: `must be an integer of unix seconds between 0 and ${MAX_TIMESTAMP}` });
  return z.NEVER;
});

/** A value given by any of its spellings (strings in any case), mapped to its one meaning. */
export function spelledAs<T>(spellings: readonly (readonly [string | number, T])[], message: string) {
  const byKey = new Map<unknown, T>(spellings);
  return z.unknown().transform((v, ctx) => {
    const hit = byKey.get(typeof v === 'string' ? v.toLowerCase() : v);
    if (hit !== undefined) return hit;
    ctx.addIssue({ code: 'custom', message });
    return z.NEVER;
  });
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
    .pipe(z.array(item));
}

type Payload = z.core.ParsePayload;
type Path = readonly PropertyKey[];

/**
 * Marks an issue as a rule between fields (a leg's expiry against the clock, a leg against
 * the first leg), not a failure to read a value: the value stays usable by later rules.
 */
const RULE = { rule: true } as const;

/** Adds a rule issue at `path` (relative to the schema the refinement sits on). */
export function ruleIssue(ctx: Payload, path: Path, message: string): void {
  ctx.issues.push({ code: 'custom', message, path: [...path], params: RULE, input: undefined, continue: true });
}

const overlaps = (a: Path, b: Path) => {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return false;
  return true;
};

/**
 * True when the value at `path` was read: no issue other than a rule lies on it, under it or
 * above it. Rules that relate several fields run on whatever parsed, so that one request is
 * told about every field at once, yet never judge a value that could not be read.
 */
export function parsedAt(ctx: Payload, path: Path): boolean {
  return !ctx.issues.some((i) => (i as { params?: unknown }).params !== RULE && overlaps(i.path ?? [], path));
}

/** A refinement of an object that runs even when some fields failed, as long as the input was an object. */
export const whenObject = { when: (p: Payload) => typeof p.value === 'object' && p.value !== null && !Array.isArray(p.value) };

/** A refinement of a sized array that runs even when some items failed, but not when the array itself was refused. */
export const whenArray = { when: (p: Payload) => Array.isArray(p.value) && !p.issues.some((i) => (i.path ?? []).length === 0) };

/** One issue per key of `value` outside `known`, at that key: each unknown field is named. */
export function unknownKeys(ctx: Payload, value: Record<string, unknown>, known: ReadonlySet<string>, message: string): void {
  for (const key of Object.keys(value)) if (!known.has(key)) ctx.issues.push({ code: 'custom', message, path: [key], input: undefined, continue: true });
}

/**
 * zod parses without a context, so a rule against the clock ("must be in the future") is built
 * into its schema. Building (and compiling) a schema costs far more than parsing with one, so
 * the schema of the latest arguments (the clock's second, a configured limit) is kept and
 * reused until they change.
 */
export function rebuiltWhenChanged<A extends readonly (string | number)[], S>(build: (...args: A) => S): (...args: A) => S {
  let last: { key: string; schema: S } | undefined;
  return (...args: A) => {
    const key = args.join('\u0000');
    if (last?.key !== key) last = { key, schema: build(...args) };
    return last.schema;
  };
}
