import { getAddress } from 'viem';
import { localPublicClient, probeChainId } from '../../../shared/chain/clients';
import { ensureDevBondRequirements, ensureDevchain, startAndRegisterDevchain, startDevchain } from '../../../dev/devchain';
import { expectedAddresses } from '../../../dev/deploy';
import { startHardhatNode } from '../../../dev/hardhat-node';
import { Lifecycle } from '../../../shared/platform/lifecycle';
import { NetworksService } from '../../../shared/networks';
import { freePort, startTestChain } from '../../support/chain';
import { networkFile } from '../../support/fixtures';
import { createTestEnv, type TestEnv } from '../../support/test-env';

/** The devchain as `npm run devchain` and `npm start` (DEVCHAIN=auto) bring it up, against a real test database. */
let env: TestEnv;

beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await env?.close();
});

const CONTRACT_KEYS = [
  'bond_vault',
  'fill_authority',
  'margin_lending_market',
  'margin_price_oracle',
  'meme',
  'mothership',
  'opshuns_core',
  'pair_factory',
  'premium_usdc',
  'rfq',
  'token0',
  'token1',
  'usdc',
  'wbtc',
  'weth',
];

async function clearRegistry(): Promise<void> {
  await env.db.query('DELETE FROM tokens');
  await env.db.query('DELETE FROM networks');
}

const autoConfig = (port: number, over: Partial<{ DEVCHAIN: 'auto' | 'off'; NODE_ENV: 'development' | 'test' | 'production' }> = {}) => ({
  DEVCHAIN: 'auto' as const,
  DEVCHAIN_PORT: port,
  NODE_ENV: 'development' as const,
  HOST: '127.0.0.1',
  ...over,
});

describe('devchain registration', () => {
  it('upserts network 31337 with every address, and there is code at each', async () => {
    await clearRegistry();
    const port = await freePort();
    const chain = await startAndRegisterDevchain({ db: env.db, port });
    try {
      const networks = new NetworksService(env.db);
      const stored = await networks.network(31337);
      expect(stored).not.toBeNull();
      expect(stored?.rpc_urls).toEqual([`http://127.0.0.1:${port}`]);
      expect(stored?.confirmations).toBe(0);
      expect(Object.keys(stored?.contracts ?? {}).sort()).toEqual(CONTRACT_KEYS);
      expect(stored?.contracts.mothership).toBe(chain.addresses.mothership);
      expect(stored?.contracts.opshuns_core).toBe(chain.addresses.pair);
      expect([stored?.contracts.token0, stored?.contracts.token1, stored?.contracts.premium_usdc]).toEqual([
        chain.addresses.weth,
        chain.addresses.usdc,
        chain.addresses.usdc,
      ]);

      const client = localPublicClient(chain.rpcUrl);
      for (const [key, address] of Object.entries(stored?.contracts ?? {})) {
        expect(address).toBe(getAddress(address));
        const code = await client.getCode({ address: address as `0x${string}` });
        expect([key, (code ?? '0x').length > 2]).toEqual([key, true]);
      }

      const payment = await networks.paymentTokens();
      expect(payment.tokens.map((t) => [t.symbol, t.faucet]).sort()).toEqual([
        ['USDC', true],
        ['WETH', true],
      ]);
      expect((await networks.defaultPremiumTokens()).tokens.map((t) => [t.symbol, t.address, t.decimals])).toEqual([['USDC', chain.addresses.usdc, 6]]);
    } finally {
      await chain.stop();
    }
    expect(await probeChainId(chain.rpcUrl)).toBeNull();
  });
});

describe("the devchain's bond minimums", () => {
  it('are non-zero for every faucet token where the operator set none (2 USDC for the premium token), and an entry already there is kept, an explicit zero included', async () => {
    const networks = new NetworksService(env.db);
    await networks.setSetting('bond_requirements', {});
    await ensureDevBondRequirements(networks);
    const set = await networks.setting('bond_requirements');
    expect(set.USDC).toEqual({ premium_bond_amount: '2000000', fill_bond_amount: '2000000' });
    expect(Object.keys(set).sort()).toEqual(['MEME', 'USDC', 'WBTC', 'WETH']);
    for (const [symbol, entry] of Object.entries(set)) expect([symbol, BigInt(entry.fill_bond_amount) > 0n]).toEqual([symbol, true]);

    await networks.setSetting('bond_requirements', {
      USDC: { premium_bond_amount: '0', fill_bond_amount: '0' },
      WETH: { premium_bond_amount: '7', fill_bond_amount: '9' },
    });
    await ensureDevBondRequirements(networks);
    const kept = await networks.setting('bond_requirements');
    expect(kept.USDC).toEqual({ premium_bond_amount: '0', fill_bond_amount: '0' });
    expect(kept.WETH).toEqual({ premium_bond_amount: '7', fill_bond_amount: '9' });
    expect(BigInt(kept.WBTC.fill_bond_amount)).toBeGreaterThan(0n);
  });
});

describe('ensureDevchain (npm start, DEVCHAIN=auto)', () => {
  it('starts on an empty networks, leaves a live one alone, and redeploys after the node restarted empty', async () => {
    await clearRegistry();
    const port = await freePort();
    const lifecycle = new Lifecycle(env.logger, 10_000);
    const deps = { config: autoConfig(port), db: env.db, logger: env.logger, lifecycle };

    const first = await ensureDevchain(deps);
    expect(first?.reused).toBe(false);
    expect(first?.addresses).toEqual(expectedAddresses());
    expect((await new NetworksService(env.db).network(31337))?.contracts.mothership).toBe(first?.addresses.mothership);

    // Registered and alive: nothing to do.
    await expect(ensureDevchain(deps)).resolves.toBeNull();

    // The lifecycle owns the node: shutting down stops it, as SIGTERM on `npm start` would.
    await lifecycle.shutdown('test');
    expect(await probeChainId(`http://127.0.0.1:${port}`)).toBeNull();

    // Next start: the registry still names 31337 but its mothership has no code anywhere.
    const lifecycle2 = new Lifecycle(env.logger, 10_000);
    const second = await ensureDevchain({ ...deps, lifecycle: lifecycle2 });
    expect(second?.addresses).toEqual(first?.addresses);
    const code = await localPublicClient(`http://127.0.0.1:${port}`).getCode({ address: expectedAddresses().mothership });
    expect((code ?? '0x').length).toBeGreaterThan(2);
    await lifecycle2.shutdown('test');
  });

  it('does nothing when off, in production, or when only real networks are registered', async () => {
    await clearRegistry();
    const port = await freePort();
    const lifecycle = { onClose: jest.fn() };
    await expect(ensureDevchain({ config: autoConfig(port, { DEVCHAIN: 'off' }), db: env.db, logger: env.logger, lifecycle })).resolves.toBeNull();
    await expect(ensureDevchain({ config: autoConfig(port, { NODE_ENV: 'production' }), db: env.db, logger: env.logger, lifecycle })).resolves.toBeNull();
    await new NetworksService(env.db).upsertNetwork(networkFile(11155111, { rpc_urls: ['http://127.0.0.1:1'] }));
    await expect(ensureDevchain({ config: autoConfig(port), db: env.db, logger: env.logger, lifecycle })).resolves.toBeNull();
    expect(lifecycle.onClose).not.toHaveBeenCalled();
    expect(await probeChainId(`http://127.0.0.1:${port}`)).toBeNull();
  });
});

describe('a node already on the port', () => {
  it('is adopted when it holds our contracts, and left running on stop', async () => {
    const running = await startTestChain();
    try {
      const adopted = await startDevchain({ port: Number(new URL(running.rpcUrl).port) });
      expect(adopted.reused).toBe(true);
      expect(adopted.addresses).toEqual(running.addresses);
      await adopted.stop();
      expect(await probeChainId(running.rpcUrl)).toBe(31337);
    } finally {
      await running.stop();
    }
  });

  it('is refused with a clear message when it does not', async () => {
    const empty = await startHardhatNode({ port: await freePort() });
    try {
      await expect(startDevchain({ port: empty.port, adoptWaitMs: 0 })).rejects.toThrow(
        /does not hold this build of the reference contracts .*: stop that node, set DEVCHAIN_PORT to a free port, or set DEVCHAIN=off/,
      );
      // A second node on a busy port fails; the first one answering is not mistaken for it.
      await expect(startHardhatNode({ port: empty.port })).rejects.toThrow(/did not start: process exited/);
    } finally {
      await empty.stop();
    }
  });
});
