import { cursorOf, mineBlocks, openHarness, runIndexer, waitFor, waitForHead, type Harness } from './harness';
import { startWsProxy } from './ws-proxy';

/**
 * The realtime path wakes on the node's `newHeads` over WebSocket when the network lists a
 * ws:// RPC URL, and keeps polling as the fallback. The poll interval here is ten minutes:
 * a block indexed within the wait below can only have been noticed through the subscription.
 */
let h: Harness;
let ix: Awaited<ReturnType<typeof runIndexer>> | undefined;

beforeAll(async () => {
  h = await openHarness({ INDEXER_POLL_INTERVAL_MS: '600000' });
}, 60_000);

afterEach(async () => {
  await ix?.stop();
  ix = undefined;
});
afterAll(() => h?.close());

const nodeHead = async () => Number(await h.chain.rpc<string>('eth_blockNumber'));

it("indexes each new block as the node announces it on the hardhat node's ws endpoint", async () => {
  const ws = h.chain.rpcUrl.replace(/^http/, 'ws');
  await h.register({ confirmations: 0, rpc_urls: [h.chain.rpcUrl, ws] });
  ix = await runIndexer(h.env);
  await waitForHead(h);
  for (let i = 0; i < 3; i++) {
    await mineBlocks(h.chain, 1);
    const head = await nodeHead();
    await waitFor(
      `block ${head} indexed without a poll`,
      () => cursorOf(h.env, 31337),
      (c) => c?.block_number === head,
      20_000,
    );
  }
});

it("a ws URL alone serves the calls over the same endpoint's HTTP", async () => {
  await h.register({ confirmations: 0, rpc_urls: [h.chain.rpcUrl.replace(/^http/, 'ws')] });
  ix = await runIndexer(h.env);
  await mineBlocks(h.chain, 1);
  const head = await nodeHead();
  await waitFor(
    `block ${head} indexed`,
    () => cursorOf(h.env, 31337),
    (c) => c?.block_number === head,
    20_000,
  );
});

it('falls back to polling when the ws endpoint is down', async () => {
  await h.register({ confirmations: 0, rpc_urls: [h.chain.rpcUrl, 'ws://127.0.0.1:9'] });
  ix = await runIndexer(h.env, { config: { INDEXER_POLL_INTERVAL_MS: 50 } });
  await mineBlocks(h.chain, 2);
  const head = await nodeHead();
  await waitFor(
    `block ${head} indexed by polling`,
    () => cursorOf(h.env, 31337),
    (c) => c?.block_number === head,
    20_000,
  );
});

it('replaces a subscription that stays open but stops announcing, and indexes by polling meanwhile', async () => {
  const proxy = await startWsProxy(h.chain.rpcUrl.replace(/^http/, 'ws'));
  try {
    await h.register({ confirmations: 0, rpc_urls: [h.chain.rpcUrl, proxy.url] });
    ix = await runIndexer(h.env, { config: { INDEXER_POLL_INTERVAL_MS: 200, INDEXER_WS_SILENCE_MS: 1000 } });
    await waitFor(
      'the first subscription',
      async () => proxy.subscribes,
      (n) => n >= 1,
      20_000,
    );
    await waitForHead(h);
    const silentBefore = await silentCount();

    // The socket stays open, but the node's announcements no longer reach the indexer.
    proxy.silence();
    await mineBlocks(h.chain, 2);
    const head = await nodeHead();
    await waitFor(
      `block ${head} indexed by polling while the socket is silent`,
      () => cursorOf(h.env, 31337),
      (c) => c !== null && c.block_number >= head,
      30_000,
    );
    await waitFor(
      'a new connection and subscription',
      async () => [proxy.connections, proxy.subscribes],
      ([c, s]) => c >= 2 && s >= 2,
      60_000,
    );
    expect(await silentCount()).toBeGreaterThan(silentBefore);

    // The new subscription serves, and blocks keep being indexed.
    await mineBlocks(h.chain, 1);
    const next = await nodeHead();
    await waitFor(
      `block ${next} indexed after the replacement`,
      () => cursorOf(h.env, 31337),
      (c) => c !== null && c.block_number >= next,
      30_000,
    );
  } finally {
    await ix?.stop();
    ix = undefined;
    await proxy.close();
  }
}, 180_000);

/** `indexer_ws_silent_total` for this chain. */
async function silentCount(): Promise<number> {
  const metric = h.env.metrics.registry.getSingleMetric('indexer_ws_silent_total');
  if (!metric) return 0;
  const { values } = await metric.get();
  return values.filter((v) => v.labels.chain_id === '31337').reduce((sum, v) => sum + v.value, 0);
}
