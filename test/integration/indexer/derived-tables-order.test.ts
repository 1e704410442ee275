import type { DataSource } from 'typeorm';
import { DERIVED_TABLES, rollbackOrderProblems, type ForeignKey } from '../../../indexer/store/derived-tables';
import { createTestEnv, type TestEnv } from '../../support/test-env';

/** Every foreign key of the migrated schema (public), as the catalog has it. */
async function schemaForeignKeys(db: DataSource): Promise<ForeignKey[]> {
  return db.query(
    `SELECT c.conname AS name, f.relname AS "from", t.relname AS "to"
       FROM pg_constraint c
       JOIN pg_class f ON f.oid = c.conrelid
       JOIN pg_class t ON t.oid = c.confrelid
       JOIN pg_namespace n ON n.oid = f.relnamespace
      WHERE c.contype = 'f' AND n.nspname = 'public'
      ORDER BY 1`,
  );
}

/**
 * A rollback deletes rows of the derived tables in DERIVED_TABLES order: a table whose rows
 * reference another's must roll back first, or the delete under it fails (or cascades behind the
 * rollback's back). The foreign keys come from the migrated schema, so a migration that adds
 * one between two derived tables fails here until the list agrees.
 */
describe('the rollback order of the derived tables against the schema', () => {
  let env: TestEnv;
  beforeAll(async () => {
    env = await createTestEnv();
  });
  afterAll(() => env.close());

  it("keeps every foreign key of the migrated schema and every entry's own constraints", async () => {
    const keys = await schemaForeignKeys(env.db);
    // The catalog is read: the indexer's tables reference their network.
    expect(keys).toContainEqual({ name: 'indexer_events_chain_id_fkey', from: 'indexer_events', to: 'networks' });
    expect(rollbackOrderProblems(DERIVED_TABLES, keys)).toEqual([]);
  });

  it('a foreign key added between two derived tables against the list is caught; one along it is not', async () => {
    await env.db.query(
      `ALTER TABLE indexer_balances ADD CONSTRAINT balances_pair_fkey FOREIGN KEY (chain_id, pair) REFERENCES indexer_pairs (chain_id, address) NOT VALID`,
    );
    await env.db.query(
      `ALTER TABLE indexer_clob_activity ADD CONSTRAINT activity_pair_fkey FOREIGN KEY (chain_id, pair) REFERENCES indexer_pairs (chain_id, address) NOT VALID`,
    );
    expect(rollbackOrderProblems(DERIVED_TABLES, await schemaForeignKeys(env.db))).toEqual([
      'indexer_clob_activity must come before indexer_pairs (foreign key activity_pair_fkey: it references indexer_pairs)',
    ]);
  });
});
