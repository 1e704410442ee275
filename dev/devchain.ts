import type { DataSource } from 'typeorm';
import { isAddress, type Address } from 'viem';
import { ConfigError, type Config } from '../shared/platform/config';
import type { Lifecycle } from '../shared/platform/lifecycle';
import type { Logger } from '../shared/platform/logging';
import { NetworksService, type NetworkInput } from '../shared/networks';
import { DEVCHAIN_CHAIN_ID, localPublicClient, probeChainId } from '../shared/chain/clients';
import { assertDevTools, missingDevTools, notInstalled } from './dev-tools';
import { serviceSigner } from '../shared/chain/service-signer';
import { DEV_TOKENS, deployReferenceContracts, ensureServiceSigner, expectedAddresses, hasReferenceContracts, type DeployedAddresses } from './deploy';
import { startHardhatNode } from './hardhat-node';

/** A local chain with the reference contracts deployed. */
export interface Devchain {
  rpcUrl: string;
  chainId: number;
  addresses: DeployedAddresses;
  /** True when a node already running on the port was adopted rather than started. */
  reused: boolean;
  /** Stops the node if this process started it; a reused node is left running. */
  stop(): Promise<void>;
}

/** How long to wait for a sibling process that may be deploying on a node it just started. */
const ADOPT_WAIT_MS = 15_000;

/**
 * Brings up the devchain on 127.0.0.1:`port`: adopts a node already answering there when it
 * holds our contracts, otherwise starts Hardhat, deploys and creates the WETH / USDC pair.
 * A node on the port without our contracts is an error: deploying onto someone else's chain
 * would give addresses nobody expects.
 */
export async function startDevchain(opts: {
  port: number;
  logger?: Logger;
  adoptWaitMs?: number;
  /** The service signer to register on the mothership (deployed or adopted); the development key by default. */
  serviceSigner?: Address;
}): Promise<Devchain> {
  // Even adopting a running node compiles the contracts (to know their addresses): solc is needed either way.
  assertDevTools('the devchain');
  const rpcUrl = `http://127.0.0.1:${opts.port}`;
  const expected = expectedAddresses();
  const chainId = await probeChainId(rpcUrl);
  if (chainId !== null) {
    if (chainId !== DEVCHAIN_CHAIN_ID) {
      throw new Error(`${rpcUrl} answers as chain ${chainId}, not the devchain (${DEVCHAIN_CHAIN_ID}): free the port, set DEVCHAIN_PORT, or set DEVCHAIN=off`);
    }
    const deadline = Date.now() + (opts.adoptWaitMs ?? ADOPT_WAIT_MS);
    while (!(await hasReferenceContracts(rpcUrl, expected))) {
      if (Date.now() > deadline) {
        throw new Error(
          `a node answers on ${rpcUrl} but does not hold this build of the reference contracts (mothership expected at ` +
            `${expected.mothership}): stop that node, set DEVCHAIN_PORT to a free port, or set DEVCHAIN=off`,
        );
      }
      await new Promise((r) => setTimeout(r, 500));
    }
    if (opts.serviceSigner) await ensureServiceSigner({ rpcUrl, mothership: expected.mothership, signer: opts.serviceSigner });
    opts.logger?.info({ rpcUrl }, 'devchain: adopted the node already running');
    return { rpcUrl, chainId, addresses: expected, reused: true, stop: async () => undefined };
  }

  const node = await startHardhatNode({ port: opts.port });
  try {
    const addresses = await deployReferenceContracts({
      rpcUrl: node.rpcUrl,
      serviceSigners: opts.serviceSigner ? [opts.serviceSigner] : undefined,
    });
    opts.logger?.info({ rpcUrl, pid: node.pid, addresses }, 'devchain: hardhat node started, contracts deployed');
    return { rpcUrl: node.rpcUrl, chainId: DEVCHAIN_CHAIN_ID, addresses, reused: false, stop: node.stop };
  } catch (err) {
    await node.stop();
    throw err;
  }
}

/** The networks table's contract map of a devchain (keys as GET /api/networks serves them). */
export function devchainContracts(a: DeployedAddresses): Record<string, Address> {
  return {
    mothership: a.mothership,
    rfq: a.mothership,
    opshuns_core: a.pair,
    token0: a.weth,
    token1: a.usdc,
    premium_usdc: a.usdc,
    weth: a.weth,
    usdc: a.usdc,
    wbtc: a.wbtc,
    meme: a.meme,
    pair_factory: a.pairFactory,
    bond_vault: a.bondVault,
    // margin_* keys are the indexer's: GET /api/networks leaves them out (the spec's clients ignore them).
    margin_price_oracle: a.priceOracle,
    margin_lending_market: a.lendingMarket,
    // An allowlist IFillAuthority a Dutch request may name as its required_authority (docs/DUTCH.md).
    fill_authority: a.fillAuthority,
  };
}

/** The network document NetworksService.upsertNetwork takes for a devchain. */
export function devchainNetwork(rpcUrl: string, a: DeployedAddresses): NetworkInput {
  return {
    chain_id: DEVCHAIN_CHAIN_ID,
    name: 'Hardhat devchain',
    rpc_urls: [rpcUrl],
    contracts: devchainContracts(a),
    enabled: true,
    // Hardhat mines one block per transaction and never reorgs.
    confirmations: 0,
    tokens: DEV_TOKENS.map((t) => ({
      address: a[t.key],
      symbol: t.symbol,
      name: t.name,
      decimals: t.decimals,
      payment: t.payment,
      default_premium: t.defaultPremium,
      faucet: true,
      min_notional: t.minNotional,
    })),
  };
}

/**
 * The devchain's bond minimums, where the operator has set none: each faucet token's `fillBond`
 * (2 USDC for the premium token), never zero, so a new user, the demos and the maker bot deposit,
 * have bonds reserved by their bids and exclusive fills, and meet the refusals a real network
 * gives. The fill bond check fails closed anyway (a premium token with no entry is refused).
 * Entries already there are kept, an explicit zero included.
 */
export async function ensureDevBondRequirements(networks: NetworksService): Promise<void> {
  const current = await networks.setting('bond_requirements');
  const missing = DEV_TOKENS.filter((t) => !(t.symbol in current));
  if (missing.length === 0) return;
  const entries = missing.map((t) => [t.symbol, { premium_bond_amount: t.fillBond, fill_bond_amount: t.fillBond }]);
  await networks.setSetting('bond_requirements', { ...current, ...Object.fromEntries(entries) });
}

/** Starts the devchain and writes network 31337 with every address into the networks table, and its tokens' bond minimums where unset. */
export async function startAndRegisterDevchain(deps: { db: DataSource; port: number; logger?: Logger; serviceSigner?: Address }): Promise<Devchain> {
  const chain = await startDevchain({ port: deps.port, logger: deps.logger, serviceSigner: deps.serviceSigner });
  try {
    const networks = new NetworksService(deps.db);
    await networks.upsertNetwork(devchainNetwork(chain.rpcUrl, chain.addresses));
    await ensureDevBondRequirements(networks);
  } catch (err) {
    await chain.stop();
    throw err;
  }
  return chain;
}

/** Whether the devchain's network entry points at a node that still has its mothership. */
async function registeredDevchainAlive(rpcUrls: string[], mothership: string | undefined): Promise<boolean> {
  const rpcUrl = rpcUrls[0];
  if (!rpcUrl || !mothership || !isAddress(mothership) || (await probeChainId(rpcUrl)) !== DEVCHAIN_CHAIN_ID) return false;
  const code = await localPublicClient(rpcUrl).getCode({ address: mothership });
  return !!code && code !== '0x';
}

/**
 * `npm start`'s devchain step (DEVCHAIN=auto): when the networks table has no network, or its
 * devchain (31337) has lost its contracts because the node restarted empty, bring up the
 * devchain, (re)deploy, re-register, and stop it with the process. Real networks in the
 * networks table, production, or DEVCHAIN=off leave everything alone.
 */
export async function ensureDevchain(deps: {
  config: Pick<Config, 'DEVCHAIN' | 'DEVCHAIN_PORT' | 'NODE_ENV' | 'HOST' | 'SERVICE_SIGNER_KEY'>;
  db: DataSource;
  logger: Logger;
  lifecycle: Pick<Lifecycle, 'onClose'>;
}): Promise<Devchain | null> {
  const { config, logger } = deps;
  if (config.DEVCHAIN === 'off') return null;
  const networks = await new NetworksService(deps.db).allNetworks();
  const dev = networks.find((n) => n.chain_id === DEVCHAIN_CHAIN_ID);
  if (networks.length > 0 && !dev) return null;
  if (dev && (await registeredDevchainAlive(dev.rpc_urls, dev.contracts.mothership))) {
    // A key configured since the devchain was deployed still has to be registered to sign.
    const signer = serviceSigner(config, networks).address;
    await ensureServiceSigner({ rpcUrl: dev.rpc_urls[0]!, mothership: dev.contracts.mothership as Address, signer }).catch((err: unknown) =>
      logger.warn({ err, signer }, 'devchain: could not register the service signer; awards and exclusive fills it signs will be refused on chain'),
    );
    return null;
  }
  if (config.NODE_ENV === 'production') {
    logger.warn('devchain: not started in production; configure a network with `npm run ops` or set DEVCHAIN=off');
    return null;
  }
  const missing = missingDevTools();
  if (missing.length > 0) {
    throw new ConfigError([
      {
        key: 'DEVCHAIN',
        message: `auto would start the local Hardhat chain (no usable network is registered), but ${notInstalled(missing)}; or set DEVCHAIN=off and register a network with \`npm run ops -- network:upsert\``,
      },
    ]);
  }
  // The chain this step registers replaces a dead devchain entry: the signer is judged on it.
  const after = [
    ...networks.filter((n) => n.chain_id !== DEVCHAIN_CHAIN_ID),
    { chain_id: DEVCHAIN_CHAIN_ID, rpc_urls: [`http://127.0.0.1:${config.DEVCHAIN_PORT}`] },
  ];
  const chain = await startAndRegisterDevchain({
    db: deps.db,
    port: config.DEVCHAIN_PORT,
    logger,
    serviceSigner: serviceSigner(config, after).address,
  });
  if (!chain.reused) deps.lifecycle.onClose('devchain', () => chain.stop());
  return chain;
}
