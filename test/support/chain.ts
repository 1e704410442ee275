import net from 'node:net';
import type { Account, Address, Chain, HDAccount, Hex, PublicClient, Transport, WalletClient } from 'viem';
import { DEVCHAIN_CHAIN_ID, hardhatAccounts, localPublicClient, localWalletClient, rawRpc } from '../../shared/chain/clients';
import { devchainNetwork } from '../../dev/devchain';
import { deployReferenceContracts, type DeployedAddresses } from '../../dev/deploy';
import { startHardhatNode, type HardhatNode } from '../../dev/hardhat-node';
import type { NetworkInput } from '../../shared/networks';

/**
 * A private Hardhat node for one test file, with the reference contracts deployed.
 *
 *   let chain: TestChain;
 *   beforeAll(async () => { chain = await startTestChain(); });
 *   afterAll(() => chain?.stop());
 *
 * Each call starts its own node on a free 127.0.0.1 port, so test files never share chain
 * state. The node also dies with the jest worker if `stop()` is never reached. A file that only
 * uses the chain (no stopping it, no proxy with its own semantics, no fresh genesis) takes the
 * jest worker's shared node instead: `sharedTestChain()` (test/support/worker-chain.ts), the same
 * TestChain on a snapshot just after the deployment, without the seconds a new node costs.
 */
export interface TestChain {
  rpcUrl: string;
  chainId: number;
  /** Batching public client (many reads in one HTTP request), 50 ms polling. */
  publicClient: PublicClient<Transport, Chain>;
  /** Hardhat's funded default accounts; accounts[0] deployed the contracts, use the others in tests. */
  accounts: HDAccount[];
  /** One wallet client per account, same order, signing locally. */
  wallets: WalletClient<Transport, Chain, Account>[];
  /** mothership, pairFactory, bondVault, the four faucet tokens and the WETH / USDC pair. */
  addresses: DeployedAddresses;
  /** The network document of this chain (NetworksService.upsertNetwork input), for DB-backed tests. */
  network: NetworkInput;
  /** Any JSON-RPC call, e.g. `rpc('evm_snapshot')`. */
  rpc<T = unknown>(method: string, params?: unknown[]): Promise<T>;
  /** Moves chain time forward and mines a block, so the next block's timestamp is at least that much later. */
  increaseTime(seconds: number): Promise<void>;
  /** Timestamp of the latest block, unix seconds. */
  now(): Promise<number>;
  /** Sends a contract call from `accounts[from]`, waits for its receipt, throws if it reverted; the tx hash. */
  send(from: number, address: Address, abi: readonly unknown[], functionName: string, args: readonly unknown[]): Promise<Hex>;
  /** Stops the node; safe to call twice. */
  stop(): Promise<void>;
}

/** A port on 127.0.0.1 that was free a moment ago. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Starts a Hardhat node on a free port, waits until it answers, and deploys the reference contracts. */
export async function startTestChain(opts: { accounts?: number } = {}): Promise<TestChain> {
  const node = await startNodeOnFreePort();
  try {
    const addresses = await deployReferenceContracts({ rpcUrl: node.rpcUrl });
    return testChainOn(node.rpcUrl, addresses, { accounts: opts.accounts, stop: node.stop });
  } catch (err) {
    await node.stop();
    throw err;
  }
}

/** The TestChain of a node that answers at `rpcUrl` with the reference contracts at `addresses`. */
export function testChainOn(rpcUrl: string, addresses: DeployedAddresses, opts: { accounts?: number; stop: () => Promise<void> }): TestChain {
  const accounts = hardhatAccounts(opts.accounts ?? 10);
  const rpc = <T>(method: string, params: unknown[] = []) => rawRpc<T>(rpcUrl, method, params, 10_000);
  const publicClient = localPublicClient(rpcUrl);
  const wallets = accounts.map((a) => localWalletClient(rpcUrl, a));
  return {
    rpcUrl,
    chainId: DEVCHAIN_CHAIN_ID,
    publicClient,
    accounts,
    wallets,
    addresses,
    network: devchainNetwork(rpcUrl, addresses),
    rpc,
    async increaseTime(seconds) {
      await rpc('evm_increaseTime', [seconds]);
      await rpc('evm_mine');
    },
    async now() {
      const block = await rpc<{ timestamp: Hex }>('eth_getBlockByNumber', ['latest', false]);
      return Number(BigInt(block.timestamp));
    },
    async send(from, address, abi, functionName, args) {
      const hash = await wallets[from].writeContract({ address, abi, functionName, args } as never);
      const receipt = await publicClient.waitForTransactionReceipt({ hash });
      if (receipt.status !== 'success') throw new Error(`${functionName} reverted`);
      return hash;
    },
    stop: opts.stop,
  };
}

/** Another process may take the port between freePort() and the node's bind: try a few. */
export async function startNodeOnFreePort(attempts = 3): Promise<HardhatNode> {
  let last: unknown;
  for (let i = 0; i < attempts; i++) {
    try {
      return await startHardhatNode({ port: await freePort() });
    } catch (err) {
      last = err;
    }
  }
  throw last;
}
