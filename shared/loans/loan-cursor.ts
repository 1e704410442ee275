import { ValidationError } from '../platform/errors';

/**
 * Opaque page cursors of the loan lists: the keyset position of a page's last item, as
 * base64url JSON. Clients pass back `next_cursor` unchanged; anything else is a 400 on `cursor`.
 */
export function encodeCursor(position: Record<string, string>): string {
  return Buffer.from(JSON.stringify(position)).toString('base64url');
}

/** The position in `cursor` with exactly `keys`, each a decimal string; a 400 naming `cursor` otherwise. */
export function decodeCursor<K extends string>(cursor: string, keys: readonly K[]): Record<K, string> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    parsed = null;
  }
  const o = parsed as Record<string, unknown> | null;
  const ok =
    typeof o === 'object' && o !== null && !Array.isArray(o) && Object.keys(o).length === keys.length && keys.every((k) => typeof o[k] === 'string' && /^(0|[1-9][0-9]{0,77})$/.test(o[k] as string));
  if (!ok) throw ValidationError.field('cursor', 'must be the next_cursor of a previous page of this list');
  return o as Record<K, string>;
}
