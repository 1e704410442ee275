import { z } from 'zod';
import { intRange, intQuerySchema, PG_INT4_MAX, PG_INT8_SAFE_MAX } from '../validation';

/**
 * Keyset pagination with an opaque cursor (docs/EXPLORE.md, "Pagination"): `?cursor=&limit=`,
 * answered as `{items, next_cursor}`. A cursor is the sort key of the last item served,
 * base64url-encoded JSON behind a version tag; clients pass it back untouched and never read
 * it. A page is one index range scan from that key whatever the depth, unlike OFFSET.
 */

/** docs/API.md, "Conventions of every answer": default 50 items, at most 500. */
export const PAGE_LIMIT_DEFAULT = 50;
export const PAGE_LIMIT_MAX = 500;

const LIMIT = intRange(1, PAGE_LIMIT_MAX, 'a page size');
const CURSOR_TAG = 'c1.';
const CURSOR_MESSAGE = 'must be a next_cursor value answered by this route';

/**
 * Members of sort keys, each bounded to the column it is compared with: a cursor carrying a value
 * that column cannot hold is refused like any other forged cursor (400 naming `cursor`), never
 * sent to Postgres to fail there.
 */
export const blockNumberMember = z.number().int().min(0).max(PG_INT8_SAFE_MAX);
/** A log index: Postgres `integer`. */
export const logIndexMember = z.number().int().min(0).max(PG_INT4_MAX);
/** The position of an event on chain, (block number, log index): the sort key of event lists. */
export const chainPositionKey = z.tuple([blockNumberMember, logIndexMember]);

/** A page of items and where the next one starts (null: this was the last). */
export interface Page<T> {
  items: T[];
  next_cursor: string | null;
}

/** Encodes a sort key as an opaque cursor. */
export function encodeCursor(key: readonly (string | number)[]): string {
  return CURSOR_TAG + Buffer.from(JSON.stringify(key), 'utf8').toString('base64url');
}

/**
 * The `cursor` query schema of a route whose sort key has the given shape: a cursor that is
 * not one this route could have answered is a 400 naming `cursor`, never a query on garbage.
 */
export function cursorSchema<K extends z.ZodType<readonly (string | number)[]>>(key: K) {
  return z.string({ message: `${CURSOR_MESSAGE}, given once` }).transform((raw, ctx): z.output<K> => {
    if (raw.length > 512 || !raw.startsWith(CURSOR_TAG)) {
      ctx.addIssue({ code: 'custom', message: CURSOR_MESSAGE });
      return z.NEVER;
    }
    let decoded: unknown;
    try {
      decoded = JSON.parse(Buffer.from(raw.slice(CURSOR_TAG.length), 'base64url').toString('utf8'));
    } catch {
      decoded = undefined;
    }
    const parsed = key.safeParse(decoded);
    if (!parsed.success) {
      ctx.addIssue({ code: 'custom', message: CURSOR_MESSAGE });
      return z.NEVER;
    }
    return parsed.data;
  });
}

/** `?limit=`: an integer from 1 to 500, 50 when absent. */
export const limitQuery = intQuerySchema(LIMIT)
  .optional()
  .transform((v) => v ?? PAGE_LIMIT_DEFAULT);

/** The query fields of a paginated route whose sort key has the given shape. */
export function pageQuery<K extends z.ZodType<readonly (string | number)[]>>(key: K) {
  return { cursor: cursorSchema(key).optional(), limit: limitQuery };
}

/**
 * Shapes a page from up to `limit + 1` rows read after the cursor: the extra row only says
 * that another page exists, and the last row served becomes the next cursor.
 */
export function toPage<R, T>(rows: readonly R[], limit: number, keyOf: (row: R) => readonly (string | number)[], view: (row: R) => T): Page<T> {
  const served = rows.slice(0, limit);
  const more = rows.length > limit && served.length > 0;
  return { items: served.map(view), next_cursor: more ? encodeCursor(keyOf(served[served.length - 1])) : null };
}
