import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { RfqClient } from '../../../client/src';
import { runDemoMaker } from '../../../examples/demo-maker';
import { runTaker } from '../../../examples/taker';
import { NetworksService } from '../../../shared/networks';
import type { TestChain } from '../../support/chain';
import { sharedTestChain } from '../../support/worker-chain';
import { ops } from '../../support/ops';
import { spawnService, type RunningService } from '../../support/spawn-service';
import { createTestEnv, type TestEnv } from '../../support/test-env';
import { waitFor } from './harness';

/** Hardhat's third default account, the demo's taker. */
const TAKER_KEY = '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a';

/**
 * Issue #18 as a new user met it: the whole service running (every role, in its own process),
 * the demo settles a package, then the Hardhat user's habit: `evm_revert` to a snapshot taken
 * before the demo and `evm_mine` until the chain is longer. The portfolio must come back to
 * what it was before the demo, and `/api/indexer/status` must answer 200 all along.
 */
describe('the demo, then evm_revert and evm_mine', () => {
  let chain: TestChain;
  let env: TestEnv;
  let svc: RunningService;

  beforeAll(async () => {
    [chain, env] = await Promise.all([sharedTestChain(), createTestEnv()]);
    await new NetworksService(env.db).upsertNetwork(chain.network);
    svc = await spawnService(
      {
        DATABASE_URL: env.config.DATABASE_URL,
        REDIS_URL: env.config.REDIS_URL,
        REDIS_PREFIX: env.config.REDIS_PREFIX,
        DEVCHAIN: 'off',
        INDEXER_POLL_INTERVAL_MS: '100',
      },
      { timeoutMs: 90_000 },
    );
  }, 120_000);

  afterAll(async () => {
    await svc?.stop('SIGTERM');
    await Promise.allSettled([chain?.stop(), env?.close()]);
  });

  it('returns the portfolio to its pre-demo state while the status stays 200', async () => {
    const api = new RfqClient(svc.url);
    const taker = privateKeyToAccount(TAKER_KEY);
    const portfolio = async () => (await api.call<{ networks: unknown[] }>('GET', `/api/portfolio/${taker.address}?chain_id=31337`)).networks[0];
    await waitFor(
      'indexer up',
      () => fetch(`${svc.url}/api/indexer/status`).then((r) => r.status),
      (s) => s === 200,
      30_000,
    );
    const before = await portfolio();
    const snapshot = await chain.rpc<string>('evm_snapshot');
    const demoStart = Number(await chain.rpc<string>('eth_blockNumber'));

    const maker = privateKeyToAccount(generatePrivateKey());
    expect((await ops(env, 'org:create', '--kind', 'maker', '--name', 'Demo maker', '--owner', maker.address)).code).toBe(0);
    const bot = await runDemoMaker({ client: api, account: maker, chainId: 31337, mothership: chain.addresses.mothership, premiumToken: chain.addresses.usdc });
    try {
      await runTaker({ client: api, account: taker, chainId: 31337, rpcUrl: chain.rpcUrl, mothership: chain.addresses.mothership, pair: chain.addresses.pair });
    } finally {
      await bot.stop();
    }
    const settled = await waitFor('the demo settlement in the portfolio', portfolio, (p) => JSON.stringify(p) !== JSON.stringify(before));
    expect(JSON.stringify(settled)).not.toBe(JSON.stringify(before));

    // From here on, every status answer is recorded.
    const statuses: number[] = [];
    let polling = true;
    const poller = (async () => {
      while (polling) {
        statuses.push((await fetch(`${svc.url}/api/indexer/status`)).status);
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    try {
      const demoBlocks = Number(await chain.rpc<string>('eth_blockNumber')) - demoStart;
      await chain.rpc('evm_revert', [snapshot]);
      for (let i = 0; i < demoBlocks + 3; i++) await chain.rpc('evm_mine');
      const after = await waitFor('the portfolio back to its pre-demo state', portfolio, (p) => JSON.stringify(p) === JSON.stringify(before), 30_000);
      expect(after).toEqual(before);
      const head = await chain.rpc<{ number: string }>('eth_getBlockByNumber', ['latest', false]);
      await waitFor(
        'the status at the new head',
        () => api.call<{ networks: { cursor: number }[] }>('GET', '/api/indexer/status'),
        (s) => s.networks[0].cursor === Number(head.number),
      );
    } finally {
      polling = false;
      await poller;
    }
    expect(statuses.length).toBeGreaterThan(0);
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    const status = await api.call<{ networks: { healthy: boolean; reorgs: { count: number } }[] }>('GET', '/api/indexer/status');
    expect(status.networks[0]).toMatchObject({ healthy: true, reorgs: { count: 1 } });
  }, 120_000);
});
