import { sqlLiterals } from '../platform/db';
import { DUTCH_PHASES } from '../../wire/src/dutch.wire';

/**
 * A Dutch quote's phases as quoted SQL literals, for the SQL text of dutch-state.ts and the
 * repository. Server-side only: the list itself is wire data (wire/src/dutch.wire.ts).
 */

/** `DUTCH_PHASE_SQL.competing` is `'competing'`, quoted, for SQL text. */
export const DUTCH_PHASE_SQL = sqlLiterals(DUTCH_PHASES);
