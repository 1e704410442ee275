import { EXCLUSIVE_FILL_STATES, ON_CHAIN_ORDER_STATES, ORDER_STATES } from '../../../wire/src/order.wire';
import { DUTCH_PHASES } from '../../../wire/src/dutch.wire';
import { QUOTE_STATES } from '../../../wire/src/quote.wire';
import { createTestEnv, type TestEnv } from '../../support/test-env';

/**
 * The names a state or phase column may hold are written twice: as data in the wire module
 * (which types the code, writes the repositories' SQL literals and documents the API) and as
 * the column's CHECK constraint in a migration. This holds the two equal on the migrated
 * database, so a new state added to one and not the other fails here (docs/ARCHITECTURE.md,
 * "Add a quote state").
 */

/** [table, column, the names its CHECK must allow]. */
const CHECKED_COLUMNS: [string, string, readonly string[]][] = [
  ['quotes', 'state', QUOTE_STATES],
  ['quotes', 'dutch_phase', DUTCH_PHASES],
  // The last phase whose payloads went out: any phase after the competition.
  ['quotes', 'dutch_published_phase', DUTCH_PHASES.filter((p) => p !== 'competing')],
  ['orders', 'state', ORDER_STATES],
  ['exclusive_fills', 'state', EXCLUSIVE_FILL_STATES],
  ['indexer_orders', 'state', ON_CHAIN_ORDER_STATES],
];

describe('state and phase CHECK constraints', () => {
  let env: TestEnv;

  beforeAll(async () => {
    env = await createTestEnv();
  });
  afterAll(() => env.close());

  /** The literals of the one CHECK constraint on `table.column` (Postgres writes `IN (...)` as `= ANY (ARRAY['a'::text, ...])`). */
  async function checkedNames(table: string, column: string): Promise<string[]> {
    const rows: { def: string }[] = await env.db.query(
      `SELECT pg_get_constraintdef(c.oid) AS def
         FROM pg_constraint c
         JOIN pg_class t ON t.oid = c.conrelid
         JOIN pg_namespace n ON n.oid = t.relnamespace AND n.nspname = 'public'
         JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = ANY (c.conkey)
        WHERE c.contype = 'c' AND t.relname = $1 AND a.attname = $2 AND cardinality(c.conkey) = 1`,
      [table, column],
    );
    expect([table, column, rows.length]).toEqual([table, column, 1]);
    return [...rows[0].def.matchAll(/'([^']*)'::text/g)].map((m) => m[1]);
  }

  it.each(CHECKED_COLUMNS)("%s.%s allows exactly the wire module's names", async (table, column, names) => {
    const inDatabase = await checkedNames(table, column);
    expect(inDatabase.length).toBeGreaterThan(0);
    expect([...inDatabase].sort()).toEqual([...names].sort());
  });
});
