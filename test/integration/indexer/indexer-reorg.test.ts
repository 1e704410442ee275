import request from 'supertest';
import { optionPairAbi } from '../../../shared/chain/abis';
import { topics } from '../../../shared/events';
import { topicEvents } from '../../support/events';
import { buildApp } from '../../support/http';
import { cursorOf, mineBlocks, mint, openHarness, optionId, pairCall, quoteState, runIndexer, settleQuote, waitFor, waitForHead, type Harness } from './harness';
import { expectMirrorsChain } from './mirror';

/**
 * Reorgs made on a real Hardhat node: `evm_snapshot`, blocks the indexer sees, `evm_revert`,
 * then different blocks mined at the same heights. A trigger records every cursor move so the
 * step back is observed, not inferred.
 */
let h: Harness;
let ix: Awaited<ReturnType<typeof runIndexer>>;
let app: ReturnType<typeof buildApp>['app'];
let idA: bigint;
const CONFIRMATIONS = 4;
const pair = () => h.chain.addresses.pair;
const alice = () => h.chain.accounts[1].address;
const bob = () => h.chain.accounts[2].address;
const portfolio = async (address: string) => (await request(app).get(`/api/portfolio/${address}`).expect(200)).body.networks[0];

async function cursorMoves(): Promise<number[]> {
  const rows: { block_number: string }[] = await h.env.db.query(`SELECT block_number FROM test_cursor_moves ORDER BY id`);
  return rows.map((r) => Number(r.block_number));
}

beforeAll(async () => {
  h = await openHarness();
  app = buildApp(h.env).app;
  await h.env.db.query(`CREATE TABLE test_cursor_moves (id bigserial PRIMARY KEY, block_number bigint NOT NULL)`);
  await h.env.db.query(`
    CREATE FUNCTION test_log_cursor() RETURNS trigger AS $$
    BEGIN INSERT INTO test_cursor_moves (block_number) VALUES (NEW.block_number); RETURN NEW; END $$ LANGUAGE plpgsql`);
  await h.env.db.query(`CREATE TRIGGER test_cursor_moves AFTER UPDATE ON indexer_cursors FOR EACH ROW EXECUTE FUNCTION test_log_cursor()`);
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
    const movesBefore = (await cursorMoves()).length;

    await h.chain.rpc('evm_revert', [snapshot]);
    await mineBlocks(h.chain, orphanTip - forkAt + 2);
    const head = await waitFor('new chain indexed', async () => ({ cursor: await cursorOf(h.env, 31337), head: await h.chain.rpc<{ hash: string; number: string }>('eth_getBlockByNumber', ['latest', false]) }), (v) => v.cursor?.block_hash === v.head.hash);

    // The cursor went back to the fork point before moving on along the new chain.
    const moves = (await cursorMoves()).slice(movesBefore);
    expect(moves).toContain(forkAt);
    expect(Math.min(...moves)).toBe(forkAt);
    expect(moves[moves.length - 1]).toBe(Number(head.head.number));

    // Orphaned rows are gone; what they changed is undone.
    expect((await portfolio(bob())).holdings).toEqual([]);
    expect((await portfolio(bob())).closed).toEqual([]);
    expect((await portfolio(alice())).holdings).toEqual([expect.objectContaining({ balance: '10' })]);
    expect((await portfolio(h.chain.accounts[3].address)).open_orders).toEqual([expect.objectContaining({ order_id: orderId.toString(), remaining: '6' })]);
    expect(await quoteState(h, settled.quoteId)).toEqual({ state: 'open', fill_tx_hash: null, closed_at: null });
    const reopened = await waitFor('reorg notice', () => topicEvents(h.env, topics.rfqStream(settled.streamHash)), (e) => e.length === 2);
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

  it('stops the network loudly on a reorg deeper than the kept window, and never advances past it', async () => {
    await waitForHead(h);
    const snapshot = await h.chain.rpc<string>('evm_snapshot');
    await mineBlocks(h.chain, CONFIRMATIONS + 3);
    const before = await waitForHead(h);
    await h.chain.rpc('evm_revert', [snapshot]);
    // Empty blocks mined within the same second as the originals would be the same blocks: move time on.
    await h.chain.rpc('evm_increaseTime', [3600]);
    await mineBlocks(h.chain, CONFIRMATIONS + 6);

    const res = await waitFor('deep reorg 503', async () => request(app).get('/api/indexer/status'), (r) => r.status === 503);
    expect(res.body.error).toMatch(/indexer stopped for chain 31337: chain 31337 reorganised below block \d+, the oldest block kept \(confirmations 4\)/);
    await new Promise((r) => setTimeout(r, 300));
    expect((await cursorOf(h.env, 31337))!.block_number).toBe(before);
    const status: { state: string }[] = await h.env.db.query(`SELECT state FROM indexer_status WHERE chain_id = 31337`);
    expect(status).toEqual([{ state: 'stopped' }]);
  });
});
