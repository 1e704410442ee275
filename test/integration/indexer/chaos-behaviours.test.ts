import { runChainActivity } from '../../support/chain-activity';
import { eventually } from '../../support/events';
import { startChaosRpc, type ChaosBehaviours, type ChaosRpc } from '../../support/chaos-rpc';
import { openHarness, runIndexer, waitForHead, type Harness } from './harness';
import { expectMirrorsChain } from './mirror';

/**
 * Each way a hosted provider misbehaves, alone and often, while the indexer backfills a history
 * and follows new activity: every log is still stored once and every balance equals the
 * chain's (`expectMirrorsChain`), and the failure is counted under its own class in
 * `rfq_indexer_provider_failures_total`. The whole mix at once is chaos-differential.test.ts.
 */
let h: Harness;
let chaos: ChaosRpc;

beforeAll(async () => {
  // A node of its own, not the worker's shared one: the chaos proxy in front of it is the file's only view of it.
  h = await openHarness({ INDEXER_RPC_RETRIES: '10', INDEXER_RPC_TIMEOUT_MS: '600', INDEXER_AUDIT_BLOCKS_PER_MINUTE: '0' }, { chain: 'private' });
  chaos = await startChaosRpc(h.chain.rpcUrl);
  await runChainActivity(h.chain, { rounds: 1 });
  await h.register({ rpc_urls: [chaos.url], confirmations: 0 });
}, 120_000);

afterAll(async () => {
  await chaos?.close();
  await h?.close();
});

/** The provider failures counted under `cls` on this process's registry (`hedged`: reads sent again because the first was slow). */
async function failures(cls: string): Promise<number> {
  const name = cls === 'hedged' ? 'rfq_indexer_rpc_hedged_total' : 'rfq_indexer_provider_failures_total';
  const metric = (await h.env.metrics.registry.getMetricsAsJSON()).find((m) => m.name === name);
  const values = (metric?.values ?? []) as { labels: Record<string, string>; value: number }[];
  return values.filter((v) => cls === 'hedged' || v.labels.class === cls).reduce((a, v) => a + v.value, 0);
}

const CASES: [string, Partial<ChaosBehaviours>, string[]][] = [
  ['a backend two blocks behind the head', { lagging: 0.5 }, ['lagging_backend', 'incomplete_answer']],
  ['429 Too Many Requests', { rateLimited: 0.3 }, ['rate_limited']],
  ['503 with an HTML body', { serverError: 0.3 }, ['server_error']],
  // Hedged before the timeout as a rule; on a busy machine some run into it.
  ['answers slower than the timeout', { slow: 0.15, slowMs: [700, 900] }, ['hedged', 'timeout']],
  ['bodies cut in half', { cutBody: 0.2 }, ['invalid_body']],
  ['wide eth_getLogs ranges refused', { rangeRefused: 0.5 }, ['range_refused']],
];

const total = (counts: number[]) => counts.reduce((a, b) => a + b, 0);

describe.each(CASES)('behind a provider giving %s', (_name, behaviour, classes) => {
  it('indexes every log exactly once and counts the failure by its class', async () => {
    const before = total(await Promise.all(classes.map(failures)));
    // From scratch: a network without a cursor is indexed again from its start block.
    await h.env.db.query(`DELETE FROM indexer_cursors`);
    chaos.calm();
    chaos.set(behaviour);
    const ix = await runIndexer(h.env);
    try {
      await runChainActivity(h.chain, { rounds: 1, emptyBlocks: 0 });
      const head = await waitForHead(h);
      // Each request draws the behaviour at random, and a draw shows only on a request it can
      // spoil (a lagging backend only on an answer past its head): the indexer may reach the head
      // before one did. The behaviour stays on, the indexer polling the head, until the failure is
      // counted (a ceiling, not a wait: it is counted at once in most runs).
      await eventually(
        () => Promise.all(classes.map(failures)),
        (now) => total(now) > before,
        30_000,
        `a failure counted as ${classes.join(' or ')}`,
      );
      chaos.calm();
      await expectMirrorsChain(h.chain, h.env, head);
    } finally {
      await ix.stop();
    }
    expect(total(await Promise.all(classes.map(failures)))).toBeGreaterThan(before);
  });
});
