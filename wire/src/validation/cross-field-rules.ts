import type { z } from 'zod';

/**
 * Rules between the fields of one body (a leg against the clock, a leg against the first leg,
 * unknown fields). They run in refinements that zod calls even when some fields failed, so a
 * body is told about every bad field at once; each rule judges only values that were read.
 */

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
