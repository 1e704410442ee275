import { runChainActivity } from '../../support/chain-activity';
import { CHAOS_MIX, startChaosRpc, type ChaosRpc } from '../../support/chaos-rpc';
import { expectSameAsFreshIndexer } from './fresh-indexer';
import { openHarness, runIndexer, waitForHead, type Harness } from './harness';

/**
 * The differential test of the indexer behind a hosted provider: on-chain activity of every
 * indexed kind while the indexer reads the chain through a proxy that answers like a load
 * balancer over lagging, rate-limited, flaky backends (test/support/chaos-rpc.ts, every
 * behaviour on); then a second indexer, on its own database, indexes the same blocks through the
 * same proxy made well-behaved, and every derived table must be equal row for row (and the API's
 * portfolio and cores views with them). The seed is printed in the failure message and can be
 * set with CHAOS_SEED to replay a run.
 */
let h: Harness;
let chaos: ChaosRpc;

beforeAll(async () => {
  // Retries enough for a 48 % chance that an attempt fails, with timeouts short enough that slow answers are retried.
  // A node of its own, not the worker's shared one: the chaos proxy in front of it is the file's only view of it.
  h = await openHarness({ INDEXER_RPC_RETRIES: '10', INDEXER_RPC_TIMEOUT_MS: '1500', INDEXER_AUDIT_BLOCKS_PER_MINUTE: '0' }, { chain: 'private' });
  chaos = await startChaosRpc(h.chain.rpcUrl);
}, 120_000);

afterAll(async () => {
  await chaos?.close();
  await h?.close();
});

it('indexes activity of every kind behind the full chaos mix exactly as through a clean provider', async () => {
  // History before the indexer starts (backfilled under chaos), then activity while it follows the head.
  await runChainActivity(h.chain, { rounds: 1 });
  await h.register({ rpc_urls: [chaos.url], confirmations: 0 });
  chaos.set(CHAOS_MIX);
  const ix = await runIndexer(h.env);
  try {
    // Each round is followed while the chaos goes on: wide ranges behind, single blocks at the head.
    let txs = 0;
    for (let round = 0; round < 3; round++) {
      txs += (await runChainActivity(h.chain, { rounds: 1, emptyBlocks: round })).txs;
      await waitForHead(h);
    }
    const applied = chaos.stats().applied;
    chaos.calm();
    // Every behaviour happened while the indexer read (the mix is seeded: the same run each time).
    expect({ seed: chaos.seed, lagging: applied.lagging > 0, rateLimited: applied.rateLimited > 0, rangeRefused: applied.rangeRefused > 0 }).toEqual({
      seed: chaos.seed,
      lagging: true,
      rateLimited: true,
      rangeRefused: true,
    });
    const holders = h.chain.accounts.map((a) => a.address);
    // The fresh indexer is stopped before the views are compared: its status must not go stale meanwhile.
    await expectSameAsFreshIndexer(h, { addresses: holders, env: { INDEXER_STATUS_STALE_MS: '600000' } });
    expect(txs).toBeGreaterThan(100);
  } finally {
    await ix.stop();
  }
});
