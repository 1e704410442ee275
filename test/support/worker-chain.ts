import type { Hex } from 'viem';
import { probeChainId, rawRpc } from '../../shared/chain/clients';
import { deployReferenceContracts, type DeployedAddresses } from '../../dev/deploy';
import { startNodeOnFreePort, startTestChain, testChainOn, type TestChain } from './chain';

/**
 * The jest worker's shared Hardhat node: one node per worker, started and deployed by the first
 * file of the worker that asks for it, then handed to each later file of that worker reverted to
 * the snapshot taken right after the deployment. A file gets the same TestChain as from
 * `startTestChain()` (the reference contracts at the same addresses, every account at its
 * genesis balance and nonce) for a revert instead of a new node and a deployment (seconds each).
 *
 *   let chain: TestChain;
 *   beforeAll(async () => { chain = await sharedTestChain(); });
 *   afterAll(() => chain?.stop());   // hands it back; the node lives on for the next file
 *
 * Use it in a file that only uses the chain. A file that stops the node, restarts a devchain on
 * its port, puts a proxy with its own semantics in front of it, or needs a fresh genesis keeps a
 * private node (`startTestChain()`). Mining mode, snapshots and time moves a file makes are undone
 * for the next one (the revert, automine back on, the clock realigned).
 *
 * `TEST_CHAIN=private` gives every file a node of its own again, as before the sharing.
 *
 * Jest runs one file at a time per worker, so a node is never used by two files at once; workers
 * never see each other's node (each holds its own, in the worker's test environment, which
 * outlives the files: test/support/jest-environment.js). The node dies with its worker.
 */

interface SharedState {
  rpcUrl: string;
  pid: number;
  addresses: DeployedAddresses;
  /** The post-deployment snapshot; Hardhat consumes a snapshot on revert, so each file takes the next one. */
  snapshot: Hex;
}

/** What the worker's test environment holds across files (test/support/jest-environment.js). */
interface WorkerSlot {
  state?: string;
}

/** Whether this file holds the worker's node now (a second call in one file gets a private node). */
let held = false;

export async function sharedTestChain(opts: { accounts?: number } = {}): Promise<TestChain> {
  const slot = (globalThis as { __rfqWorkerChain?: WorkerSlot }).__rfqWorkerChain;
  // Outside the project's test environment, a second chain in one file, or every file on a node
  // of its own (TEST_CHAIN=private: to tell whether a failure comes from the sharing): a private node.
  if (slot === undefined || held || process.env.TEST_CHAIN === 'private') return startTestChain(opts);
  let state = slot.state !== undefined ? (JSON.parse(slot.state) as SharedState) : undefined;
  if (state !== undefined && !(await rewind(state))) {
    killQuietly(state.pid);
    state = undefined;
  }
  if (state === undefined) state = await startShared();
  slot.state = JSON.stringify(state);
  await resetForNextFile(state.rpcUrl);
  held = true;
  return testChainOn(state.rpcUrl, state.addresses, {
    accounts: opts.accounts,
    // The next file reverts it; nothing to wait for here.
    stop: async () => {
      held = false;
    },
  });
}

/** A new node for this worker, the reference contracts deployed, and the snapshot files revert to. */
async function startShared(): Promise<SharedState> {
  const node = await startNodeOnFreePort();
  try {
    const addresses = await deployReferenceContracts({ rpcUrl: node.rpcUrl });
    const snapshot = await rawRpc<Hex>(node.rpcUrl, 'evm_snapshot', [], 10_000);
    node.release();
    return { rpcUrl: node.rpcUrl, pid: node.pid, addresses, snapshot };
  } catch (err) {
    await node.stop();
    throw err;
  }
}

/** Back to the post-deployment state, and a new snapshot of it; false when the node is gone or refuses. */
async function rewind(state: SharedState): Promise<boolean> {
  if ((await probeChainId(state.rpcUrl, 2_000)) === null) return false;
  try {
    if ((await rawRpc<boolean>(state.rpcUrl, 'evm_revert', [state.snapshot], 10_000)) !== true) return false;
    state.snapshot = await rawRpc<Hex>(state.rpcUrl, 'evm_snapshot', [], 10_000);
    return true;
  } catch {
    return false;
  }
}

/**
 * What a revert does not undo, put back as a new node has it: automine on, no interval mining,
 * nothing pending. Then the file's first block, mined at the wall clock: Hardhat's revert moves the
 * node's clock by the time since the snapshot (and keeps any `evm_increaseTime` of the last file),
 * so without it a file sees the chain hours or days off the wall clock and its offers expire on
 * arrival. The block never goes back in time: at least one second after the reverted head.
 */
async function resetForNextFile(rpcUrl: string): Promise<void> {
  const rpc = <T>(method: string, params: unknown[] = []) => rawRpc<T>(rpcUrl, method, params, 10_000);
  await rpc('evm_setAutomine', [true]);
  await rpc('evm_setIntervalMining', [0]);
  const pending = await rpc<{ transactions: Hex[] } | null>('eth_getBlockByNumber', ['pending', false]);
  for (const hash of pending?.transactions ?? []) await rpc('hardhat_dropTransaction', [hash]);
  const head = await rpc<{ timestamp: Hex }>('eth_getBlockByNumber', ['latest', false]);
  const at = Math.max(Math.floor(Date.now() / 1000), Number(BigInt(head.timestamp)) + 1);
  await rpc('evm_setNextBlockTimestamp', [at]);
  await rpc('evm_mine');
}

function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already ended
  }
}
