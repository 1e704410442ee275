import type { Address } from 'viem';
import { optionPairAbi } from '../../../shared/chain/abis';
import { randomBytes } from 'node:crypto';
import { ExploreWatchers, feedTopic } from '../../../shared/explore';
import { topics } from '../../../shared/events';
import { hashStreamToken } from '../../../shared/platform/stream-tokens';
import { assertNoTakerIdentity, topicEvents } from '../../support/events';
import { buildApp, request } from '../../support/http';
import {
  balanceOf,
  createPair,
  cursorOf,
  mineBlocks,
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
import { startWorkers, type Workers } from '../../support/workers';

/**
 * The indexer against a real Hardhat node with the reference contracts: backfill of history in
 * small adaptive ranges, then live blocks; factory discovery; balances; orders; settlement.
 */
let h: Harness;
let ix: Awaited<ReturnType<typeof runIndexer>>;
/** The workers fan a subject's indexed events out to the stream tokens watching it. */
let workers: Workers;
let app: ReturnType<typeof buildApp>['app'];
let idA: bigint;
const alice = () => h.chain.accounts[1].address;
const bob = () => h.chain.accounts[2].address;
const carol = () => h.chain.accounts[3].address;
const pair = () => h.chain.addresses.pair;

const portfolio = async (address: string) => (await request(app).get(`/api/portfolio/${address}?chain_id=31337`).expect(200)).body.networks[0];

beforeAll(async () => {
  // A reorg window of 5 blocks, apart from the 2 confirmations: the window no longer follows them.
  h = await openHarness({
    INDEXER_INITIAL_BLOCK_RANGE: '2',
    INDEXER_MAX_BLOCK_RANGE: '8',
    INDEXER_STATUS_STALE_MS: '6000',
    INDEXER_REORG_WINDOW_BY_CHAIN: '31337:5',
  });
  app = buildApp(h.env).app;
  idA = await optionId(h.chain, 3000n);
  // History before the indexer starts: a mint, a transfer, an open order, and 40 empty blocks.
  await mint(h.chain, pair(), 1, idA, 10n);
  await pairCall(h.chain, 1, pair(), 'transfer', [bob(), idA, 3n]);
  await pairCall(h.chain, 2, pair(), 'placeOrder', [idA, false, 7n, 2n]);
  await mineBlocks(h.chain, 40);
  await h.register({ confirmations: 2 });
  workers = startWorkers(h.env);
  ix = await runIndexer(h.env);
}, 60_000);

afterAll(async () => {
  await ix?.stop();
  await workers?.close();
  await h?.close();
});

describe('indexer sync', () => {
  it('backfills the history in adaptive ranges, then reports itself live', async () => {
    const head = await waitForHead(h, 2);
    await expectMirrorsChain(h.chain, h.env, head - 2);
    // 50 blocks at an initial span of 2 and at most 8: the backfill took many ranges.
    const rpcMetric = await h.env.metrics.registry.getSingleMetric('indexer_rpc_seconds')!.get();
    const getLogsCalls =
      rpcMetric.values.find((v) => (v as { metricName?: string }).metricName === 'indexer_rpc_seconds_count' && v.labels.method === 'eth_getLogs')?.value ?? 0;
    expect(getLogsCalls).toBeGreaterThanOrEqual(7);
    const status = await waitFor(
      'realtime status',
      async () => (await request(app).get('/api/indexer/status')).body,
      (b) => b.networks?.[0]?.backfill === false,
    );
    const cursor = await cursorOf(h.env, 31337);
    expect(status).toEqual({
      networks: [
        {
          chain_id: 31337,
          healthy: true,
          state: 'realtime',
          problem: null,
          action: null,
          head: expect.any(Number),
          cursor: expect.any(Number),
          finalized_block: status.networks[0].head - 2,
          lag_blocks: expect.any(Number),
          lag_seconds: expect.any(Number),
          last_synced_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
          backfill: false,
          // Every cursor the indexer keeps: one per contract set (factory, mothership, bond vault, lending market and its oracle).
          cursors: [
            {
              contract_set:
                `factory=${h.chain.addresses.pairFactory.toLowerCase()};mothership=${h.chain.addresses.mothership.toLowerCase()}` +
                `;bondVault=${h.chain.addresses.bondVault.toLowerCase()}` +
                `;lending_market=${h.chain.addresses.lendingMarket.toLowerCase()};price_oracle=${h.chain.addresses.priceOracle.toLowerCase()}`,
              block_number: expect.any(Number),
              block_hash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
              start_block: expect.any(Number),
              updated_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
            },
          ],
          blocks_kept: {
            window_from: expect.any(Number),
            window_to: expect.any(Number),
            window_blocks: expect.any(Number),
            oldest_checkpoint: expect.any(Number),
          },
          reorgs: { count: 0, deepest: 0, last: null },
          // One URL, by its place in rpc_urls (the URL itself is never shown), serving.
          provider: { urls: [expect.objectContaining({ url_index: 0, state: 'serving' })], last_minute: expect.any(Object) },
          audit: expect.objectContaining({ enabled: true, depth_blocks: 10_000, differences_total: 0, last_difference: null }),
        },
      ],
    });
    expect(status.networks[0].cursors[0].block_number).toBeGreaterThanOrEqual(cursor!.block_number - 5);
    expect(status.networks[0].lag_blocks).toBeLessThanOrEqual(2);
    const a = await portfolio(alice());
    expect(a.holdings).toEqual([expect.objectContaining({ clob: pair(), option_id: idA.toString(), balance: '7', option_type: 'call', strike_wad: '3000' })]);
    expect((await portfolio(bob())).open_orders).toEqual([expect.objectContaining({ side: 'sell', price: '7', amount: '2', remaining: '2' })]);
  });

  it('follows new blocks live, keeping a linked window of the reorg window size and older hashes as checkpoints', async () => {
    await pairCall(h.chain, 1, pair(), 'transfer', [carol(), idA, 2n]);
    await mineBlocks(h.chain, 3);
    const head = await waitForHead(h, 2);
    expect((await portfolio(carol())).holdings).toEqual([expect.objectContaining({ balance: '2' })]);
    expect((await portfolio(alice())).holdings[0].balance).toBe('5');
    await expectMirrorsChain(h.chain, h.env, head - 2);
    // A block is written, then the blocks leaving the window are finalized in the next step: read
    // the window once the tailer has caught up and trimmed it, not between the two.
    const readWindow = async (): Promise<{ number: string; hash: string; parent_hash: string }[]> =>
      h.env.db.query(`SELECT number, hash, parent_hash FROM indexer_blocks WHERE chain_id = 31337 ORDER BY number`);
    const window = await waitFor('the window trimmed to the reorg window size', readWindow, (w) => w.length <= 5, 20_000);
    expect(window.length).toBeGreaterThanOrEqual(1);
    expect(window.length).toBeLessThanOrEqual(5);
    for (let i = 1; i < window.length; i++) expect(window[i].parent_hash).toBe(window[i - 1].hash);
    // The window's tip is the cursor: read both in one statement (one snapshot), since the tailer
    // may write the next block between two reads (it follows the head past head - confirmations).
    const [{ tip, cursor }]: { tip: string; cursor: string }[] = await h.env.db.query(
      `SELECT (SELECT max(number) FROM indexer_blocks WHERE chain_id = 31337)::text AS tip,
              (SELECT block_number FROM indexer_cursors WHERE chain_id = 31337)::text AS cursor`,
    );
    expect(tip).toBe(cursor);
    // Hashes older than the window are kept as checkpoints, each the node's own.
    const checkpoints: { number: string; hash: string }[] = await h.env.db.query(
      `SELECT number, hash FROM indexer_checkpoints WHERE chain_id = 31337 ORDER BY number`,
    );
    expect(checkpoints.length).toBeGreaterThan(0);
    expect(Number(checkpoints[checkpoints.length - 1].number)).toBeLessThan(Number(window[0].number));
    for (const c of checkpoints) {
      const b = await h.chain.rpc<{ hash: string }>('eth_getBlockByNumber', [`0x${Number(c.number).toString(16)}`, false]);
      expect(b.hash).toBe(c.hash);
    }
  });

  it('publishes live pair events once to the feed topic of the pair the explore streams watch', async () => {
    const watcher = hashStreamToken(randomBytes(32).toString('base64url'));
    // A stream whose snapshot is the chain's head now hears the events of later blocks (the socket tier's relay filters the rest).
    const head = Number(await h.chain.publicClient.getBlockNumber());
    await new ExploreWatchers(h.env.redis, h.env.config.REDIS_PREFIX).watch('clob', 31337, pair(), watcher, Date.now() + 60_000);
    const { hash } = await pairCall(h.chain, 2, pair(), 'placeOrder', [idA, true, 4n, 1n]);
    await pairCall(h.chain, 1, pair(), 'transfer', [bob(), idA, 1n]);
    const seen = await waitFor(
      'explore events',
      async () => (await topicEvents(h.env, feedTopic('clob', 31337, pair()))).filter((e) => Number(e.payload.block_number) > head),
      (e) => e.length >= 2,
    );
    expect(seen.map((e) => [e.event, e.payload.event ?? null])).toEqual([
      ['explore_clob_event', 'OrderPlaced'],
      ['explore_clob_transfer', null],
    ]);
    expect(seen[0].payload).toMatchObject({
      chain_id: 31337,
      clob: pair(),
      tx_hash: hash.toLowerCase(),
      args: expect.objectContaining({ price: '4', amount: '1', isBuy: true }),
    });
    expect(seen[1].payload).toMatchObject({ chain_id: 31337, clob: pair(), sender: alice(), receiver: bob(), option_id: idA.toString(), amount: '1' });
  });

  it('discovers a pair the factory creates after start, and indexes its logs', async () => {
    const { wbtc, usdc } = h.chain.addresses;
    const created = await createPair(h.chain, wbtc, usdc, usdc);
    const id = await optionId(h.chain, 60_000n, 1);
    await mint(h.chain, created, 3, id, 4n);
    await mineBlocks(h.chain, 2);
    const cores = await waitFor(
      'new core',
      async () => (await request(app).get('/api/indexer/cores')).body,
      (b) => b.networks?.[0]?.cores?.length === 2,
    );
    expect(cores.networks[0].cores[1]).toEqual({
      address: created,
      token0: wbtc,
      token1: usdc,
      premium_token: usdc,
      created_block: expect.any(Number),
      discovered: true,
      registered: false,
    });
    const c = await waitFor(
      'carol holds the new series',
      () => portfolio(carol()),
      (p) => p.holdings.length === 2,
    );
    expect(c.holdings).toEqual(
      expect.arrayContaining([expect.objectContaining({ clob: created, option_type: 'put', balance: '4', token0: wbtc, token1: usdc, premium_token: usdc })]),
    );
  });

  it('keeps open orders open, and drops filled and cancelled ones', async () => {
    const dave = 4;
    const next = () => h.chain.publicClient.readContract({ address: pair(), abi: optionPairAbi, functionName: 'nextOrderId' });
    const partly = await next();
    await pairCall(h.chain, dave, pair(), 'placeOrder', [idA, true, 5n, 10n]);
    const full = await next();
    await pairCall(h.chain, dave, pair(), 'placeOrder', [idA, true, 5n, 3n]);
    const cancelled = await next();
    await pairCall(h.chain, dave, pair(), 'placeOrder', [idA, false, 9n, 1n]);
    await pairCall(h.chain, 5, pair(), 'fillOrder', [partly, 4n]);
    await pairCall(h.chain, 5, pair(), 'fillOrder', [full, 3n]);
    await pairCall(h.chain, dave, pair(), 'cancelOrder', [cancelled]);
    await mineBlocks(h.chain, 2);
    await waitForHead(h, 2);
    const p = await portfolio(h.chain.accounts[dave].address);
    expect(p.open_orders).toEqual([expect.objectContaining({ order_id: partly.toString(), side: 'buy', amount: '10', remaining: '6' })]);
    expect(p.holdings).toEqual([expect.objectContaining({ balance: '7' })]);
    const states: { order_id: string; state: string }[] = await h.env.db.query(
      `SELECT order_id::text, state FROM indexer_orders WHERE order_id = ANY($1::numeric[]) ORDER BY order_id`,
      [[partly, full, cancelled].map(String)],
    );
    expect(states.map((s) => s.state)).toEqual(['open', 'filled', 'cancelled']);
  });

  it('marks the quote a settlement pays filled and tells the taker stream', async () => {
    const maker = h.chain.accounts[6];
    const taker = h.chain.accounts[7];
    const { quoteId, streamHash, tx, expiry } = await settleQuote(h, { maker: 6, taker: 7 });
    await mineBlocks(h.chain, 2);

    const quote = await waitFor(
      'quote filled',
      () => quoteState(h, quoteId),
      (q) => q.state === 'filled',
    );
    expect(quote).toEqual({ state: 'filled', fill_tx_hash: tx.toLowerCase(), closed_at: expect.any(Date) });
    const seen = await waitFor(
      'rfq_result',
      () => topicEvents(h.env, topics.rfqStream(streamHash)),
      (e) => e.length > 0,
    );
    expect(seen).toEqual([
      {
        seq: 1,
        event: 'rfq_result',
        payload: expect.objectContaining({ seq: 1, quote_id: quoteId, chain_id: 31337, state: 'filled', fill_tx_hash: tx.toLowerCase() }),
      },
    ]);
    const maker_seen = await topicEvents(h.env, topics.rfqMaker(maker.address));
    expect(maker_seen.map((e) => [e.event, e.payload.quote_id, e.payload.state])).toEqual([['rfq_result', quoteId, 'filled']]);
    // The maker learns the outcome, never the taker nor the fill transaction (its sender is the taker).
    assertNoTakerIdentity(
      maker_seen.map((e) => e.payload),
      { taker: taker.address },
    );
    const ids: { quote_id: string }[] = await h.env.db.query(`SELECT quote_id FROM indexer_settlements WHERE tx_hash = $1`, [tx.toLowerCase()]);
    expect(ids).toEqual([{ quote_id: quoteId }]);
    // The settlement minted the long leg to the taker (direction 1): it shows in the taker's portfolio.
    const held = (await portfolio(taker.address)).holdings;
    expect(held).toEqual([expect.objectContaining({ clob: pair(), balance: '5', strike_wad: '3100', expiry_timestamp: expiry })]);
    expect(await balanceOf(h.chain, pair(), taker.address as Address, BigInt(held[0].option_id))).toBe(5n);
  });

  it('a settlement seen after the expiry job closed the quote still marks it filled: the chain is the record', async () => {
    const { quoteId, streamHash, tx } = await settleQuote(h, { maker: 8, taker: 9, expired: true });
    await mineBlocks(h.chain, 2);
    const quote = await waitFor(
      'quote filled',
      () => quoteState(h, quoteId),
      (q) => q.state === 'filled',
    );
    expect(quote.fill_tx_hash).toBe(tx.toLowerCase());
    const seen = await waitFor(
      'rfq_result',
      () => topicEvents(h.env, topics.rfqStream(streamHash)),
      (e) => e.length > 0,
    );
    expect(seen.map((e) => [e.event, e.payload.state])).toEqual([['rfq_result', 'filled']]);
  });

  it('answers 400 for a bad address or an unknown or malformed chain, naming the field', async () => {
    const bad = await request(app).get('/api/portfolio/0x1234').expect(400);
    expect(bad.body).toMatchObject({ code: 'validation_failed', details: [{ path: 'address', message: expect.any(String) }], request_id: expect.any(String) });
    const unknown = await request(app).get(`/api/portfolio/${alice()}?chain_id=999`).expect(400);
    expect(unknown.body.details).toEqual([{ path: 'chain_id', message: expect.stringContaining('unknown chain 999') }]);
    const malformed = await request(app).get(`/api/portfolio/${alice()}?chain_id=abc`).expect(400);
    expect(malformed.body.details).toEqual([{ path: 'chain_id', message: expect.any(String) }]);
    const lower = await request(app).get(`/api/portfolio/${alice().toLowerCase()}`).expect(200);
    expect(lower.body.address).toBe(alice());
    expect(lower.body.networks.map((n: { chain_id: number }) => n.chain_id)).toEqual([31337]);
    await request(app).get('/api/indexer/status?chain_id=999').expect(400);
  });

  it('turns the status 503 when the indexer stops reporting', async () => {
    await ix.stop();
    const res = await waitFor(
      'stale status',
      async () => request(app).get('/api/indexer/status'),
      (r) => r.status === 503,
      25_000,
    );
    expect(res.body).toMatchObject({
      code: 'indexer_unavailable',
      error: expect.stringContaining('indexer has not reported for chain 31337'),
      details: [{ path: 'networks.31337' }],
    });
    expect(res.headers['retry-after']).toBe('5');
    await request(app).get('/api/indexer/cores').expect(503);
  }, 40_000);
});
