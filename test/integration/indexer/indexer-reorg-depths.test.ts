import { randomBytes } from 'node:crypto';
import type { Hex } from 'viem';
import { optionPairAbi, pairFactoryAbi } from '../../../shared/chain/abis';
import { ExploreWatchers, feedTopic } from '../../../shared/explore';
import { topics } from '../../../shared/events';
import { EventHistory } from '../../../shared/platform/event-bus';
import { hashStreamToken } from '../../../shared/platform/stream-tokens';
import { assertNoTakerIdentity, topicEvents } from '../../support/events';
import { buildApp, request } from '../../support/http';
import { ACCOUNTED_TABLES, expectSameAsFreshIndexer, recordWrites } from './fresh-indexer';
import {
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
 * Reorgs of 1, 10 and 200 blocks under a running indexer on a real Hardhat node, made the way
 * Hardhat users make them (evm_snapshot, blocks, evm_revert, a longer chain mined after). The
 * removed blocks hold a settlement, transfers, an order placed, one filled and one cancelled.
 * After each, every derived table must equal, row for row, what a fresh indexer builds from
 * the new chain on a second database. The window is 64 blocks here, so 1 and 10 are repaired
 * inside it and 200 from checkpoints below it.
 */
const WINDOW = 64;
const ENV = { INDEXER_REORG_WINDOW_BY_CHAIN: `31337:${WINDOW}` };
let h: Harness;
let ix: Awaited<ReturnType<typeof runIndexer>>;
/** The workers fan a subject's indexed events (and reorg notices) out to the stream tokens watching it. */
let workers: Workers;
let app: ReturnType<typeof buildApp>['app'];
let writes: Awaited<ReturnType<typeof recordWrites>>;
let idA: bigint;
const pair = () => h.chain.addresses.pair;
const addr = (i: number) => h.chain.accounts[i].address;
const everyone = () => [1, 2, 3, 4, 5, 6, 7, 8].map(addr);
const nextOrderId = () => h.chain.publicClient.readContract({ address: pair(), abi: optionPairAbi, functionName: 'nextOrderId' });
const nodeHead = () => h.chain.rpc<{ hash: string; number: string }>('eth_getBlockByNumber', ['latest', false]);

/**
 * One block holding independent transactions (automine off): a transfer, a new order, a fill
 * and a cancel of orders placed before the fork, a settlement of a stored quote, and a new pair.
 */
async function activityBlock(fillable: bigint, cancellable: bigint): Promise<{ quoteId: string; streamHash: string }> {
  await h.chain.rpc('evm_setAutomine', [false]);
  const sent: Hex[] = [];
  try {
    sent.push(await h.chain.wallets[2].writeContract({ address: pair(), abi: optionPairAbi, functionName: 'transfer', args: [addr(3), idA, 1n] }));
    sent.push(await h.chain.wallets[3].writeContract({ address: pair(), abi: optionPairAbi, functionName: 'placeOrder', args: [idA, true, 3n, 2n] }));
    sent.push(await h.chain.wallets[5].writeContract({ address: pair(), abi: optionPairAbi, functionName: 'fillOrder', args: [fillable, 1n] }));
    sent.push(await h.chain.wallets[4].writeContract({ address: pair(), abi: optionPairAbi, functionName: 'cancelOrder', args: [cancellable] }));
    const { wbtc, meme, usdc, pairFactory } = h.chain.addresses;
    sent.push(await h.chain.wallets[9].writeContract({ address: pairFactory, abi: pairFactoryAbi, functionName: 'createPair', args: [wbtc, meme, usdc] }));
    const settled = await settleQuote(h, { maker: 8, taker: 7, wait: false });
    sent.push(settled.tx);
    await h.chain.rpc('evm_mine');
    for (const hash of sent) expect((await h.chain.publicClient.waitForTransactionReceipt({ hash })).status).toBe('success');
    return settled;
  } finally {
    await h.chain.rpc('evm_setAutomine', [true]);
  }
}

/**
 * Before the fork: wallet 2 receives a balance (the fork's transfer spends from it, so its row's
 * last block must come back to this one), and wallet 4 places one order to fill and one to cancel.
 */
async function beforeFork(): Promise<{ fillable: bigint; cancellable: bigint }> {
  await pairCall(h.chain, 1, pair(), 'transfer', [addr(2), idA, 2n]);
  const fillable = await nextOrderId();
  await pairCall(h.chain, 4, pair(), 'placeOrder', [idA, true, 2n, 5n]);
  const cancellable = await nextOrderId();
  await pairCall(h.chain, 4, pair(), 'placeOrder', [idA, true, 1n, 3n]);
  return { fillable, cancellable };
}

beforeAll(async () => {
  h = await openHarness(ENV);
  app = buildApp(h.env).app;
  idA = await optionId(h.chain, 3000n);
  await mint(h.chain, pair(), 1, idA, 50n);
  await h.register({ confirmations: 0 });
  writes = await recordWrites(h.env);
  workers = startWorkers(h.env);
  ix = await runIndexer(h.env);
  await waitForHead(h);
}, 60_000);

afterAll(async () => {
  await ix?.stop();
  await workers?.close();
  await h?.close();
});

describe.each([1, 10, 200])('a reorg of %i blocks under a running indexer', (depth) => {
  it('rolls back, re-syncs the longer chain, tells clients, and ends equal to a fresh indexer row for row', async () => {
    const { fillable, cancellable } = await beforeFork();
    const watcher = hashStreamToken(randomBytes(32).toString('base64url'));
    await new ExploreWatchers(h.env.redis, h.env.config.REDIS_PREFIX).watch('clob', 31337, pair(), watcher, Date.now() + 600_000);
    const reorgsBefore = (await request(app).get('/api/indexer/status').expect(200)).body.networks[0].reorgs.count;
    // Every depth's reorg goes to the pair's one feed topic: this depth's notice is the first after what it holds now.
    const feedBefore = await new EventHistory(h.env.redis, h.env.config).head(feedTopic('clob', 31337, pair()).key);
    const forkAt = await waitForHead(h);
    const snapshot = await h.chain.rpc<string>('evm_snapshot');

    const settled = await activityBlock(fillable, cancellable);
    if (depth > 1) {
      await mineBlocks(h.chain, depth - 2);
      await pairCall(h.chain, 1, pair(), 'transfer', [addr(3), idA, 2n]);
    }
    const orphanTip = await waitForHead(h);
    expect(orphanTip - forkAt).toBe(depth);
    expect((await quoteState(h, settled.quoteId)).state).toBe('filled');

    await h.chain.rpc('evm_revert', [snapshot]);
    // Blocks mined in the same second as the originals could be the very same blocks: move time on.
    await h.chain.rpc('evm_increaseTime', [3600]);
    await pairCall(h.chain, 1, pair(), 'transfer', [addr(6), idA, 4n]);
    await mineBlocks(h.chain, depth + 1);
    const head = await nodeHead();
    await waitFor(
      'the new chain indexed',
      () => cursorOf(h.env, 31337),
      (c) => c?.block_hash === head.hash,
    );

    const status = (await request(app).get('/api/indexer/status').expect(200)).body.networks[0];
    expect(status).toMatchObject({
      healthy: true,
      problem: null,
      reorgs: { count: reorgsBefore + 1, last: { depth: expect.any(Number), ancestor_block: expect.any(Number) } },
    });
    expect(status.reorgs.last.ancestor_block).toBeLessThanOrEqual(forkAt);
    expect(status.reorgs.last.depth).toBeGreaterThanOrEqual(depth);
    expect(status.reorgs.deepest).toBeGreaterThanOrEqual(depth);

    // The quote its settlement filled is open again; taker and maker hear it, the maker without the taker's identity.
    expect(await quoteState(h, settled.quoteId)).toEqual({ state: 'open', fill_tx_hash: null, closed_at: null });
    const taker = await waitFor(
      'taker hears the reopening',
      () => topicEvents(h.env, topics.rfqStream(settled.streamHash)),
      (e) => e.some((x) => x.payload.reorged === true),
    );
    expect(taker.map((e) => [e.payload.state, e.payload.reorged ?? false])).toEqual([
      ['filled', false],
      ['open', true],
    ]);
    const maker = await waitFor(
      'maker hears it',
      () => topicEvents(h.env, topics.rfqMaker(addr(8))),
      (e) => e.some((x) => x.payload.quote_id === settled.quoteId && x.payload.reorged === true),
    );
    assertNoTakerIdentity(
      maker.map((e) => e.payload),
      { taker: addr(7) },
    );
    // Explore watchers of the pair hear that its events above the ancestor are gone.
    const explore = await waitFor(
      'explore reorg notice',
      async () => (await topicEvents(h.env, feedTopic('clob', 31337, pair()))).filter((x) => x.seq > feedBefore),
      (e) => e.some((x) => x.payload.event === 'reorg'),
    );
    expect(explore.find((x) => x.payload.event === 'reorg')!.payload).toMatchObject({
      chain_id: 31337,
      clob: pair(),
      ancestor_block: status.reorgs.last.ancestor_block,
    });

    await expectMirrorsChain(h.chain, h.env, Number(head.number));
    await expectSameAsFreshIndexer(h, { addresses: everyone(), env: ENV });
  }, 120_000);
});

describe('the rollback list', () => {
  it('covers every table the indexer wrote through all of the above', async () => {
    const written = await writes.written();
    await writes.drop();
    // Written by this test itself (quotes) or by the indexer: each must be rolled back or be bookkeeping.
    expect(written.filter((t) => !ACCOUNTED_TABLES.has(t))).toEqual([]);
    for (const t of [
      'indexer_balances',
      'indexer_events',
      'indexer_transfers',
      'indexer_orders',
      'indexer_settlements',
      'indexer_pairs',
      'quotes',
      'indexer_reorg_stats',
      'indexer_checkpoints',
    ]) {
      expect(written).toContain(t);
    }
  });
});
