import { buildApp, request } from '../../support/http';
import { runChainActivity } from '../../support/chain-activity';
import { openHarness, runIndexer, waitFor, waitForHead, type Harness } from './harness';
import { expectMirrorsChain } from './mirror';

/**
 * The standing audit re-reads finalized blocks and compares them with what the indexer stored:
 * a row deleted behind the indexer's back (as a lost write would leave it) is found, the network
 * is re-derived from that block, and the status, the metric and the resync request say so.
 */
let h: Harness;

beforeAll(async () => {
  h = await openHarness({
    INDEXER_AUDIT_BLOCKS_PER_MINUTE: '600000',
    INDEXER_AUDIT_INTERVAL_MS: '100',
    INDEXER_AUDIT_DEPTH_BLOCKS: '100000',
    // The audit reads only blocks out of reorg reach: a short window puts most of the activity there.
    INDEXER_REORG_WINDOW_BY_CHAIN: '31337:8',
  });
}, 60_000);

afterAll(() => h?.close());

it('finds a stored log deleted behind its back, re-derives from its block and reports it', async () => {
  await runChainActivity(h.chain, { rounds: 1 });
  await h.register({ confirmations: 0 });
  const ix = await runIndexer(h.env);
  try {
    const head = await waitForHead(h);
    // One clean sweep first: nothing differs on a faithful copy.
    const { app } = buildApp(h.env);
    // Null until the network is healthy (the first steps run before the RPC has answered).
    const status = async () => {
      const r = await request(app).get('/api/indexer/status');
      return r.status === 200 ? r.body.networks[0] : null;
    };
    await waitFor('a full audit pass', status, (n) => n?.audit?.passes >= 1);
    expect((await status()).audit).toMatchObject({ enabled: true, differences_total: 0, last_difference: null });

    // As a lost write would leave it: the first OrderPlaced row of the chain, gone.
    const [victim]: { block_number: string; log_index: number; event_name: string }[] = await h.env.db.query(
      `SELECT block_number, log_index, event_name FROM indexer_events WHERE chain_id = 31337 AND event_name = 'OrderPlaced' ORDER BY block_number LIMIT 1`,
    );
    await h.env.db.query(`DELETE FROM indexer_events WHERE chain_id = 31337 AND block_number = $1 AND log_index = $2`, [victim.block_number, victim.log_index]);
    expect(victim.event_name).toBe('OrderPlaced');
    const found = await waitFor('the audit to report the difference', status, (n) => n?.audit?.differences_total >= 1, 30_000);
    expect(found.audit.last_difference).toMatchObject({ from_block: Number(victim.block_number), missing: 1, unexpected: 0 });
    const requestId = found.audit.last_difference.resync_request;
    await waitFor(
      'the resync the audit asked for',
      async () => ((await h.env.db.query(`SELECT state FROM indexer_resync_requests WHERE id = $1`, [requestId])) as { state: string }[])[0],
      (r) => r?.state === 'done',
      30_000,
    );
    await waitForHead(h);
    const back = await h.env.db.query(`SELECT 1 FROM indexer_events WHERE chain_id = 31337 AND block_number = $1 AND log_index = $2`, [
      victim.block_number,
      victim.log_index,
    ]);
    expect(back).toHaveLength(1);
    await expectMirrorsChain(h.chain, h.env, head);
    const metric = (await h.env.metrics.registry.getMetricsAsJSON()).find((m) => m.name === 'rfq_indexer_audit_differences_total');
    expect((metric?.values ?? []).reduce((a, v) => a + Number(v.value), 0)).toBeGreaterThanOrEqual(1);
  } finally {
    await ix.stop();
  }
});

it('counts no difference when a resync rolls the stored logs back while a slice is being read', async () => {
  // The audit runs beside the tail loop: a slice that read the stored logs between a resync's
  // delete and its re-derivation saw them missing, reported a difference and asked for another
  // resync, which rolled back again (a whole run once found the mirror short of every log above
  // the resync point). Resyncs one after another, the audit sweeping every 100 ms meanwhile.
  const { app } = buildApp(h.env);
  const status = async () => {
    const r = await request(app).get('/api/indexer/status');
    return r.status === 200 ? r.body.networks[0] : null;
  };
  const ix = await runIndexer(h.env);
  try {
    const head = await waitForHead(h);
    await waitFor('a full audit pass', status, (n) => n?.audit?.passes >= 1);
    const before = (await status()).audit.differences_total;
    const [first]: { block_number: string }[] = await h.env.db.query(
      `SELECT block_number FROM indexer_events WHERE chain_id = 31337 AND event_name = 'OrderPlaced' ORDER BY block_number LIMIT 1`,
    );
    for (let i = 0; i < 4; i++) {
      const [{ id }]: { id: string }[] = await h.env.db.query(`INSERT INTO indexer_resync_requests (chain_id, from_block) VALUES (31337, $1) RETURNING id`, [
        Number(first.block_number) + i,
      ]);
      await waitFor(
        `resync ${i + 1} served`,
        async () => ((await h.env.db.query(`SELECT state FROM indexer_resync_requests WHERE id = $1`, [id])) as { state: string }[])[0],
        (r) => r?.state === 'done',
        30_000,
      );
      await waitForHead(h);
    }
    // Past a further full pass over the re-derived blocks: still no difference, and no resync the audit asked for.
    const passes = (await status()).audit.passes;
    await waitFor('another full audit pass', status, (n) => n?.audit?.passes > passes);
    expect((await status()).audit.differences_total).toBe(before);
    const pending = await h.env.db.query(`SELECT id FROM indexer_resync_requests WHERE state = 'pending'`);
    expect(pending).toEqual([]);
    await expectMirrorsChain(h.chain, h.env, head);
  } finally {
    await ix.stop();
  }
});
