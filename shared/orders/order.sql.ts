import { sqlLiterals } from '../platform/db';
import { EXCLUSIVE_FILL_STATES, ON_CHAIN_ORDER_STATES, ORDER_STATES } from '../../wire/src/order.wire';

/**
 * An order's, a book order's and an exclusive fill's states as quoted SQL literals, for the SQL
 * text of order-state.ts and the repository. Server-side only: the lists themselves are wire
 * data (wire/src/order.wire.ts).
 */

/** `ORDER_STATE_SQL.open` is `'open'`, quoted, for SQL text. */
export const ORDER_STATE_SQL = sqlLiterals(ORDER_STATES);
/** `ON_CHAIN_STATE_SQL.filled` is `'filled'`, quoted: a book order's state (indexer_orders). */
export const ON_CHAIN_STATE_SQL = sqlLiterals(ON_CHAIN_ORDER_STATES);
/** `FILL_STATE_SQL.active` is `'active'`, quoted, for SQL text. */
export const FILL_STATE_SQL = sqlLiterals(EXCLUSIVE_FILL_STATES);
