import { cursorOf, mineBlocks, openHarness, runIndexer, waitFor, waitForHead, type Harness } from './harness';

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
