import { buildApp, request } from '../../support/http';
import { expectSameAsFreshIndexer } from './fresh-indexer';
import { cursorOf, mineBlocks, mint, openHarness, optionId, pairCall, runIndexer, settleQuote, waitFor, type Harness } from './harness';
import { expectMirrorsChain } from './mirror';

/**
 * The chain reorganises while the indexer is still backfilling its history one block per range:
 * blocks it already wrote are replaced, and the ranges it has yet to read come from the new
 * fork. It must notice that its ranges no longer continue what it wrote, roll back to where the
 * forks meet, and end exactly where a fresh indexer of the new chain ends.
 */
const ENV = {
  INDEXER_INITIAL_BLOCK_RANGE: '1',
  INDEXER_MAX_BLOCK_RANGE: '1',
  // A short window: most of the history is backfilled without every header, as old history is.
  INDEXER_REORG_WINDOW_BY_CHAIN: '31337:16',
};
let h: Harness;
let app: ReturnType<typeof buildApp>['app'];
const pair = () => h.chain.addresses.pair;
const addr = (i: number) => h.chain.accounts[i].address;

beforeAll(async () => {
  h = await openHarness(ENV);
  app = buildApp(h.env).app;
}, 60_000);

afterAll(async () => {
  await h?.close();
});

describe('a reorg during the backfill', () => {
  it('is rolled back to the common ancestor and the new fork indexed, equal to a fresh indexer', async () => {
    await h.register({ confirmations: 0 });
    const id = await optionId(h.chain, 2000n);
    await mint(h.chain, pair(), 1, id, 40n);
    await mineBlocks(h.chain, 60);
    const snapshot = await h.chain.rpc<string>('evm_snapshot');
    const forkAt = Number(await h.chain.rpc<string>('eth_blockNumber'));
    // The history the indexer starts on: transfers, an order and a settlement above the fork point.
    for (let i = 0; i < 8; i++) {
      await pairCall(h.chain, 1, pair(), 'transfer', [addr(2 + (i % 3)), id, 1n]);
      await mineBlocks(h.chain, 25);
    }
    await pairCall(h.chain, 2, pair(), 'placeOrder', [id, true, 3n, 4n]);
    const settled = await settleQuote(h, { maker: 5, taker: 6 });
    const oldHead = Number(await h.chain.rpc<string>('eth_blockNumber'));

    const ix = await runIndexer(h.env);
    try {
      // Let it write past the fork point, then replace everything above it.
      const seen = await waitFor(
        'backfill past the fork',
        () => cursorOf(h.env, 31337),
        (c) => c !== null && c.block_number > forkAt + 20,
      );
      await h.chain.rpc('evm_revert', [snapshot]);
      // Still far from the head it set out for: the reorg landed mid-backfill.
      expect(seen!.block_number).toBeLessThan(oldHead - 20);
      await h.chain.rpc('evm_increaseTime', [3600]);
      await pairCall(h.chain, 1, pair(), 'transfer', [addr(7), id, 5n]);
      await mineBlocks(h.chain, oldHead - forkAt + 10);
      const head = await h.chain.rpc<{ hash: string; number: string }>('eth_getBlockByNumber', ['latest', false]);
      await waitFor(
        'the new fork indexed',
        () => cursorOf(h.env, 31337),
        (c) => c?.block_hash === head.hash,
        60_000,
      );

      const after = (await request(app).get('/api/indexer/status?chain_id=31337').expect(200)).body.networks[0];
      expect(after.reorgs.count).toBeGreaterThanOrEqual(1);
      expect(after.reorgs.last.ancestor_block).toBeLessThanOrEqual(forkAt);
      const q: { state: string }[] = await h.env.db.query(`SELECT state FROM quotes WHERE id = $1`, [settled.quoteId]);
      expect(q).toEqual([{ state: 'open' }]);
      await expectMirrorsChain(h.chain, h.env, Number(head.number));
      await expectSameAsFreshIndexer(h, { addresses: [1, 2, 3, 4, 6, 7].map(addr), env: ENV });
    } finally {
      await ix.stop();
    }
  }, 120_000);
});
