import { BOOKKEEPING_TABLES, DERIVED_TABLES } from '../../../indexer/store/derived-tables';
import { NetworksService } from '../../../shared/networks';
import { buildApp, request } from '../../support/http';
import { createTestEnv, type TestEnv } from '../../support/test-env';
import { cursorOf, FAST_INDEXER, runIndexer, waitFor, type Harness } from './harness';

/** Every row of a table for the chain, as JSON text, sorted: a row-for-row fingerprint of the table. */
async function rowsOf(env: TestEnv, table: string, chainId: number): Promise<string[]> {
  const columns = table === 'quotes' ? `json_build_object('id', id, 'state', state, 'fill_tx_hash', fill_tx_hash)` : `row_to_json(t)`;
  const rows: { r: string }[] = await env.db.query(`SELECT ${columns}::text AS r FROM ${table} t WHERE chain_id = $1`, [chainId]);
  return rows.map((x) => x.r).sort();
}

/** The derived state the API serves for `addresses`: portfolios and cores, in one comparable object. */
async function apiViews(env: TestEnv, addresses: string[]): Promise<unknown> {
  // The data is compared, not the health: an indexer stopped a few seconds ago still serves it.
  const { app } = buildApp({ ...env, config: { ...env.config, INDEXER_STATUS_STALE_MS: 3_600_000 } });
  const portfolios: unknown[] = [];
  for (const a of addresses) portfolios.push((await request(app).get(`/api/portfolio/${a}`).expect(200)).body);
  const cores = (await request(app).get('/api/indexer/cores').expect(200)).body;
  return { portfolios, cores };
}

/**
 * Starts a second, fresh indexer on its own database against the same node (same network entry,
 * same quotes as the API created them), lets it index up to the block `h`'s indexer is at, and
 * checks that every derived table (DERIVED_TABLES, the list a rollback clears: balances, events, transfers,
 * settlements, pairs, orders, quote states) and the API's portfolio and cores views are equal,
 * row for row. Proves that whatever `h`'s indexer went through (reorgs, rollbacks, resyncs),
 * it ended where indexing the current chain from scratch ends.
 */
export async function expectSameAsFreshIndexer(h: Harness, opts: { addresses: string[]; env?: Record<string, string> }): Promise<void> {
  const chainId = h.chain.chainId;
  const target = await cursorOf(h.env, chainId);
  if (!target?.block_hash) throw new Error('the indexer under test has no cursor yet');
  const fresh = await createTestEnv({ ...FAST_INDEXER, ...(opts.env ?? {}) });
  try {
    const network = (await h.networks.allNetworks()).find((n) => n.chain_id === chainId)!;
    await new NetworksService(fresh.db).upsertNetwork({
      chain_id: network.chain_id,
      name: network.name,
      rpc_urls: network.rpc_urls,
      contracts: network.contracts,
      confirmations: network.confirmations,
      enabled: true,
    });
    // The quotes as the API wrote them, before any indexer touched them.
    const quotes: { q: unknown }[] = await h.env.db.query(`SELECT row_to_json(q) AS q FROM quotes q WHERE chain_id = $1`, [chainId]);
    await fresh.db.query(`INSERT INTO quotes SELECT * FROM json_populate_recordset(null::quotes, $1::json)`, [JSON.stringify(quotes.map((r) => r.q))]);
    await fresh.db.query(`UPDATE quotes SET state = 'open', closed_at = NULL, fill_tx_hash = NULL WHERE state = 'filled'`);
    const ix = await runIndexer(fresh);
    try {
      await waitFor(
        `fresh indexer at block ${target.block_number}`,
        () => cursorOf(fresh, chainId),
        (c) => c !== null && c.block_number >= target.block_number,
        60_000,
      );
    } finally {
      await ix.stop();
    }
    // Both stopped at or past the same block: compare only once both are exactly there.
    const freshCursor = await cursorOf(fresh, chainId);
    const mainCursor = await cursorOf(h.env, chainId);
    if (freshCursor!.block_hash !== mainCursor!.block_hash) {
      throw new Error(`indexers stopped at different blocks: fresh ${freshCursor!.block_number}, under test ${mainCursor!.block_number}; compare at rest`);
    }
    for (const { table } of DERIVED_TABLES) {
      expect({ table, rows: await rowsOf(h.env, table, chainId) }).toEqual({ table, rows: await rowsOf(fresh, table, chainId) });
    }
    expect(await apiViews(h.env, opts.addresses)).toEqual(await apiViews(fresh, opts.addresses));
  } finally {
    await fresh.close();
  }
}

/**
 * Records which tables are written from now on, by anyone: a statement trigger on every table
 * of the schema. `written()` lists them; `drop()` removes the triggers.
 */
export async function recordWrites(env: TestEnv): Promise<{ written(): Promise<string[]>; drop(): Promise<void> }> {
  await env.db.query(`CREATE TABLE test_written (name text PRIMARY KEY)`);
  await env.db.query(`
    CREATE FUNCTION test_note_write() RETURNS trigger AS $$
    BEGIN INSERT INTO test_written (name) VALUES (TG_TABLE_NAME) ON CONFLICT DO NOTHING; RETURN NULL; END $$ LANGUAGE plpgsql`);
  const tables: { t: string }[] = await env.db.query(
    `SELECT tablename AS t FROM pg_tables WHERE schemaname = 'public' AND tablename NOT IN ('test_written', 'schema_migrations')`,
  );
  for (const { t } of tables) {
    await env.db.query(`CREATE TRIGGER test_note_write AFTER INSERT OR UPDATE OR DELETE ON "${t}" FOR EACH STATEMENT EXECUTE FUNCTION test_note_write()`);
  }
  return {
    async written() {
      return ((await env.db.query(`SELECT name FROM test_written ORDER BY name`)) as { name: string }[]).map((r) => r.name);
    },
    async drop() {
      for (const { t } of tables) await env.db.query(`DROP TRIGGER IF EXISTS test_note_write ON "${t}"`);
    },
  };
}

/** Tables the indexer's code accounts for: derived (rolled back) or its own bookkeeping. */
export const ACCOUNTED_TABLES = new Set([...DERIVED_TABLES.map((t) => t.table), ...Object.keys(BOOKKEEPING_TABLES)]);
