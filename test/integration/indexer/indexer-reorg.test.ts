import { optionPairAbi } from '../../../shared/chain/abis';
import { topics } from '../../../shared/events';
import { topicEvents } from '../../support/events';
import { buildApp, request } from '../../support/http';
import { ops } from '../../support/ops';
import {
  cursorOf,
  mineBlocks,
  recordCursorMoves,
  mint,
  openHarness,
  optionId,
  pairCall,
  quoteState,
  runIndexer,
  settleQuote,
  waitFor,
  waitForHead,
  type Harness,
} from './harness';
import { expectMirrorsChain } from './mirror';

/**
 * Reorgs made on a real Hardhat node: `evm_snapshot`, blocks the indexer sees, `evm_revert`,
 * then different blocks mined at the same heights. A trigger records every cursor move so the
 * step back is observed, not inferred. The window keeps 8 blocks and the hard limit is 20, so
 * one test file sees a reorg inside the window, one below it, and one beyond the limit.
 */
let h: Harness;
let ix: Awaited<ReturnType<typeof runIndexer>>;
let app: ReturnType<typeof buildApp>['app'];
let idA: bigint;
let cursor: Awaited<ReturnType<typeof recordCursorMoves>>;
const CONFIRMATIONS = 4;
const WINDOW = 8;
const MAX_DEPTH = 20;
const nodeHead = () => h.chain.rpc<{ hash: string; number: string }>('eth_getBlockByNumber', ['latest', false]);
const pair = () => h.chain.addresses.pair;
const alice = () => h.chain.accounts[1].address;
const bob = () => h.chain.accounts[2].address;
const portfolio = async (address: string) => (await request(app).get(`/api/portfolio/${address}`).expect(200)).body.networks[0];

beforeAll(async () => {
  h = await openHarness({ INDEXER_REORG_WINDOW_BY_CHAIN: `31337:${WINDOW}`, INDEXER_REORG_MAX_DEPTH: String(MAX_DEPTH) });
  app = buildApp(h.env).app;
  cursor = await recordCursorMoves(h.env);
  idA = await optionId(h.chain, 3000n);
  await mint(h.chain, pair(), 1, idA, 10n);
  await h.register({ confirmations: CONFIRMATIONS });
  ix = await runIndexer(h.env);
  await mineBlocks(h.chain, CONFIRMATIONS + 2);
  await waitForHead(h);
}, 60_000);

afterAll(async () => {
  await ix?.stop();
  await h?.close();
});

describe('indexer reorgs', () => {
  it('rolls back an orphaned transfer, fill and settlement, steps the cursor back, and re-indexes the new blocks', async () => {
    // An order placed before the fork stays; its fill after the fork is orphaned.
    const orderId = await h.chain.publicClient.readContract({ address: pair(), abi: optionPairAbi, functionName: 'nextOrderId' });
    await pairCall(h.chain, 3, pair(), 'placeOrder', [idA, true, 2n, 6n]);
    const forkAt = await waitForHead(h);
    const snapshot = await h.chain.rpc<string>('evm_snapshot');

    await pairCall(h.chain, 1, pair(), 'transfer', [bob(), idA, 3n]);
    await pairCall(h.chain, 4, pair(), 'fillOrder', [orderId, 6n]);
    const settled = await settleQuote(h, { maker: 5, taker: 6 });
    const orphanTip = await waitForHead(h);
    expect((await portfolio(bob())).holdings).toEqual([expect.objectContaining({ balance: '3' })]);
    expect((await quoteState(h, settled.quoteId)).state).toBe('filled');
    expect((await portfolio(h.chain.accounts[3].address)).open_orders).toEqual([]);
    const movesBefore = (await cursor.moves()).length;

    await h.chain.rpc('evm_revert', [snapshot]);
    await mineBlocks(h.chain, orphanTip - forkAt + 2);
    const head = await waitFor(
      'new chain indexed',
      async () => ({
        cursor: await cursorOf(h.env, 31337),
        head: await h.chain.rpc<{ hash: string; number: string }>('eth_getBlockByNumber', ['latest', false]),
      }),
      (v) => v.cursor?.block_hash === v.head.hash,
    );

    // The cursor went back to the fork point before moving on along the new chain.
    const moves = (await cursor.moves()).slice(movesBefore);
    expect(moves).toContain(forkAt);
    expect(Math.min(...moves)).toBe(forkAt);
    expect(moves[moves.length - 1]).toBe(Number(head.head.number));

    // Orphaned rows are gone; what they changed is undone.
    expect((await portfolio(bob())).holdings).toEqual([]);
    expect((await portfolio(bob())).closed).toEqual([]);
    expect((await portfolio(alice())).holdings).toEqual([expect.objectContaining({ balance: '10' })]);
    expect((await portfolio(h.chain.accounts[3].address)).open_orders).toEqual([expect.objectContaining({ order_id: orderId.toString(), remaining: '6' })]);
    expect(await quoteState(h, settled.quoteId)).toEqual({ state: 'open', fill_tx_hash: null, closed_at: null });
    const reopened = await waitFor(
      'reorg notice',
      () => topicEvents(h.env, topics.rfqStream(settled.streamHash)),
      (e) => e.length === 2,
    );
    expect(reopened.map((e) => [e.event, e.payload.state, e.payload.reorged ?? false])).toEqual([
      ['rfq_result', 'filled', false],
      ['rfq_result', 'open', true],
    ]);
    const orphaned: unknown[] = await h.env.db.query(`SELECT 1 FROM indexer_transfers WHERE tx_hash = $1`, [settled.tx.toLowerCase()]);
    expect(orphaned).toEqual([]);
    await expectMirrorsChain(h.chain, h.env, Number(head.head.number));
    const reorgs = (await h.env.metrics.registry.getSingleMetric('indexer_reorgs_total')!.get()).values;
    expect(reorgs).toEqual([expect.objectContaining({ value: 1, labels: { chain_id: '31337' } })]);
  });

  // Before: any reorg below the window stopped the network for good. Now it is repaired from checkpoints.
  it('repairs a reorg deeper than the kept window from older checkpoints and keeps serving', async () => {
    await waitForHead(h);
    const snapshot = await h.chain.rpc<string>('evm_snapshot');
    await pairCall(h.chain, 1, pair(), 'transfer', [bob(), idA, 2n]);
    await mineBlocks(h.chain, WINDOW + 3);
    await waitForHead(h);
    expect((await portfolio(bob())).holdings).toEqual([expect.objectContaining({ balance: '2' })]);
    await h.chain.rpc('evm_revert', [snapshot]);
    // Empty blocks mined within the same second as the originals would be the same blocks: move time on.
    await h.chain.rpc('evm_increaseTime', [3600]);
    await mineBlocks(h.chain, WINDOW + 6);
    const head = await nodeHead();
    await waitFor(
      'new chain indexed',
      () => cursorOf(h.env, 31337),
      (c) => c?.block_hash === head.hash,
    );

    expect((await portfolio(bob())).holdings).toEqual([]);
    await expectMirrorsChain(h.chain, h.env, Number(head.number));
    const status = (await request(app).get('/api/indexer/status').expect(200)).body.networks[0];
    expect(status).toMatchObject({ healthy: true, state: 'realtime', reorgs: { count: 2, last: { depth: expect.any(Number) } } });
    expect(status.reorgs.deepest).toBeGreaterThan(WINDOW);
  });

  // Before: halted with no way back but SQL. Now: halted only beyond the hard limit, with the command that resumes it.
  it('halts beyond INDEXER_REORG_MAX_DEPTH, says exactly what to run, and resumes when the operator runs it', async () => {
    await waitForHead(h);
    const snapshot = await h.chain.rpc<string>('evm_snapshot');
    const settled = await settleQuote(h, { maker: 5, taker: 6 });
    await mineBlocks(h.chain, MAX_DEPTH + 4);
    const before = await waitForHead(h);
    expect((await quoteState(h, settled.quoteId)).state).toBe('filled');
    await h.chain.rpc('evm_revert', [snapshot]);
    await h.chain.rpc('evm_increaseTime', [3600]);
    await mineBlocks(h.chain, MAX_DEPTH + 8);

    const res = await waitFor(
      'halted: 503',
      async () => request(app).get('/api/indexer/status?chain_id=31337'),
      (r) => r.status === 503,
    );
    const [{ start_block }]: { start_block: string }[] = await h.env.db.query(`SELECT start_block FROM indexer_cursors WHERE chain_id = 31337`);
    const action = `npm run ops -- indexer:resync --chain 31337 --from-block ${start_block}`;
    const message = `indexer halted for chain 31337: the chain reorganised deeper than INDEXER_REORG_MAX_DEPTH; to resume, run: ${action}`;
    expect(res.body).toEqual({
      error: `indexer unavailable: ${message}`,
      code: 'indexer_unavailable',
      details: [{ path: 'networks.31337', message }],
      request_id: expect.any(String),
    });
    // Nothing was written past the halt: the cursor stays on the orphaned tip, the quote stays as it was.
    const row: { state: string; error_code: string; action: string }[] = await h.env.db.query(
      `SELECT state, error_code, action FROM indexer_status WHERE chain_id = 31337`,
    );
    expect(row).toEqual([{ state: 'stopped', error_code: 'reorg_too_deep', action }]);
    expect((await cursorOf(h.env, 31337))!.block_number).toBe(before);

    const run = await ops(h.env, 'indexer:resync', '--chain', '31337', '--from-block', start_block, '--timeout-seconds', '60');
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({
      chain_id: 31337,
      from_block: Number(start_block),
      state: 'done',
      rolled_back_to: Number(start_block) - 1,
      reopened_quotes: 1,
    });
    const head = await nodeHead();
    await waitFor(
      're-indexed from the start',
      () => cursorOf(h.env, 31337),
      (c) => c?.block_hash === head.hash,
    );
    const status = await request(app).get('/api/indexer/status?chain_id=31337').expect(200);
    expect(status.body.networks[0]).toMatchObject({ healthy: true, problem: null, action: null });
    expect(await quoteState(h, settled.quoteId)).toEqual({ state: 'open', fill_tx_hash: null, closed_at: null });
    await expectMirrorsChain(h.chain, h.env, Number(head.number));
  }, 90_000);
});
