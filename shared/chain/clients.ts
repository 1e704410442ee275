import {
  createPublicClient,
  createWalletClient,
  defineChain,
  http,
  type Account,
  type Chain,
  type HDAccount,
  type PublicClient,
  type Transport,
  type WalletClient,
} from 'viem';
import { mnemonicToAccount } from 'viem/accounts';

/** Hardhat's well-known development mnemonic; its accounts are funded on every Hardhat node. */
export const HARDHAT_MNEMONIC = 'test test test test test test test test test test test junk';
export const DEVCHAIN_CHAIN_ID = 31337;

const derived: HDAccount[] = [];

/** Hardhat's default funded accounts (index 0 deploys the reference contracts). */
export function hardhatAccounts(count = 10): HDAccount[] {
  // Derivation costs ~20 ms per key, so derive each index once per process.
  while (derived.length < count) derived.push(mnemonicToAccount(HARDHAT_MNEMONIC, { addressIndex: derived.length }));
  return derived.slice(0, count);
}

/** A viem chain for a local node at `rpcUrl`. */
export function localChain(rpcUrl: string, chainId = DEVCHAIN_CHAIN_ID): Chain {
  return defineChain({
    id: chainId,
    name: `Local ${chainId}`,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
}

/**
 * Public client tuned for a local automining node: JSON-RPC batching (many eth_calls in one
 * request) and a short polling interval, since blocks appear the moment a transaction lands.
 */
export function localPublicClient(rpcUrl: string, chainId = DEVCHAIN_CHAIN_ID, opts: { timeoutMs?: number } = {}): PublicClient<Transport, Chain> {
  return createPublicClient({
    chain: localChain(rpcUrl, chainId),
    transport: http(rpcUrl, { batch: { batchSize: 100 }, retryCount: 0, ...(opts.timeoutMs ? { timeout: opts.timeoutMs } : {}) }),
    pollingInterval: 50,
  });
}

/** Wallet client signing locally with `account`. */
export function localWalletClient(rpcUrl: string, account: Account, chainId = DEVCHAIN_CHAIN_ID): WalletClient<Transport, Chain, Account> {
  return createWalletClient({ account, chain: localChain(rpcUrl, chainId), transport: http(rpcUrl, { retryCount: 0 }), pollingInterval: 50 });
}

/**
 * One JSON-RPC call without viem, for probing a port that may not be a node at all. Each call has
 * its own connection (`connection: close`): reusing a kept-alive one races the node closing it
 * as idle, and on a busy machine a call then fails with "other side closed" before the node saw it.
 */
export async function rawRpc<T>(rpcUrl: string, method: string, params: unknown[] = [], timeoutMs = 2000): Promise<T> {
  const res = await fetch(rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', connection: 'close' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const body = (await res.json()) as { result?: T; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result as T;
}

/** The chain id answering at `rpcUrl`, or null when nothing (or not a node) answers. */
export async function probeChainId(rpcUrl: string, timeoutMs = 1000): Promise<number | null> {
  try {
    const hex = await rawRpc<string>(rpcUrl, 'eth_chainId', [], timeoutMs);
    return Number.parseInt(hex, 16);
  } catch {
    return null;
  }
}
