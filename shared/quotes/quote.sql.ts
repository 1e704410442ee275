import { sqlLiterals } from '../platform/db';
import { QUOTE_STATES } from '../../wire/src/quote.wire';

/**
 * A quote's states as quoted SQL literals, for the SQL text of the repositories and of
 * quote-state.ts. Server-side only: the list itself is wire data (wire/src/quote.wire.ts).
 */

/** `QUOTE_STATE_SQL.open` is `'open'`, quoted, for SQL text. */
export const QUOTE_STATE_SQL = sqlLiterals(QUOTE_STATES);
