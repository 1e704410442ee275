import { performance } from 'node:perf_hooks';
import { devchainNetwork } from '../../dev/devchain';
import { deployReferenceContracts, type DeployedAddresses } from '../../dev/deploy';
import { startHardhatNode, type HardhatNode } from '../../dev/hardhat-node';
import { optionPairAbi } from '../../shared/chain/abis';
import { hardhatAccounts, localWalletClient } from '../../shared/chain/clients';
import { createDataSource } from '../../shared/entities';
import { NetworksService } from '../../shared/networks';
import { encodeOptionId } from '../../shared/protocol';
import { onBenchExit } from '../support/bench-cleanup';
import { benchDatabase } from '../support/bench-db';
import { freePort } from '../support/free-port';

/**
 * What the chain-fed Explore benches share: a Hardhat node with the reference contracts, a
 * throwaway database with that chain registered, orders placed on chain one block each, and an
 * explore CLOB stream minted through the gate.
 */

/** A Hardhat node on a free loopback port with the reference contracts deployed, stopped when the bench ends. */
export async function startBenchChain(): Promise<{ node: HardhatNode; addresses: DeployedAddresses }> {
  const node = await startHardhatNode({ port: await freePort() });
  onBenchExit('Hardhat node', node.stop);
  try {
    return { node, addresses: await deployReferenceContracts({ rpcUrl: node.rpcUrl }) };
  } catch (err) {
    await node.stop();
    throw err;
  }
}

/**
 * A migrated throwaway database with the chain registered, confirmations 0. With `newHeads` the
 * network also lists its ws:// URL, so the indexer wakes on each block instead of polling.
 */
export async function chainDatabase(
  tag: string,
  rpcUrl: string,
  addresses: DeployedAddresses,
  opts: { newHeads: boolean },
): Promise<{ url: string; drop: () => Promise<void> }> {
  const db = await benchDatabase(tag);
  const ds = createDataSource({ url: db.url, poolSize: 1 });
  await ds.initialize();
  const network = devchainNetwork(rpcUrl, addresses);
  await new NetworksService(ds).upsertNetwork({ ...network, confirmations: 0, rpc_urls: opts.newHeads ? [rpcUrl, rpcUrl.replace(/^http/, 'ws')] : [rpcUrl] });
  await ds.destroy();
  return db;
}

/**
 * Places one small order on `pair` per call, from a Hardhat account of its own (automine: the
 * block is mined as the transaction is sent). Answers the transaction's hash and when it was sent.
 */
export function orderPlacer(rpcUrl: string, pair: `0x${string}`): () => Promise<{ hash: `0x${string}`; sentAt: number }> {
  const wallet = localWalletClient(rpcUrl, hardhatAccounts(3)[2]);
  const id = encodeOptionId({ option_type: 0, strike_wad: 3000n, expiry_timestamp: Math.floor(Date.now() / 1000) + 86_400 * 7, start_exercise_timestamp: 0 });
  return async () => {
    const sentAt = performance.now();
    const hash = await wallet.writeContract({ address: pair, abi: optionPairAbi, functionName: 'placeOrder', args: [id, true, 5n, 1n] } as never);
    return { hash, sentAt };
  };
}

/** Mints an explore CLOB stream on `pair` with `bearer`, retrying while the indexer has not yet found the pair; answers its topic. */
export async function mintClobStream(base: string, bearer: string, pair: string): Promise<string> {
  for (let i = 0; ; i++) {
    const res = await fetch(`${base}/api/explore/clobs/${pair}/stream`, { method: 'POST', headers: { authorization: `Bearer ${bearer}` } });
    if (res.status === 201) return ((await res.json()) as { topic: string }).topic;
    if (i > 300) throw new Error(`stream mint: ${res.status} ${await res.text()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
