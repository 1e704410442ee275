import { withoutBloom, type LightBlock, type Rpc } from '../rpc/rpc';
import type { IndexerStore } from '../store/indexer-store';

/** What a tailer does for the pending resync requests of its network. */
export type ResyncPlan =
  { kind: 'rollback'; requestIds: number[]; ancestor: LightBlock | null; fromBlock: number } | { kind: 'nothing'; requestIds: number[]; fromBlock: number };

/**
 * Reads an operator's pending resync requests for `chainId` (`ops indexer:resync`) and decides
 * what they ask: every pending one is served by one rollback to the block before the lowest
 * `from_block`. The ancestor is the node's header at that height, as the node has it now: the
 * operator's point is that what the indexer stored above it may be wrong. A request above the
 * cursor needs nothing (the network is not indexed that far).
 */
export async function planResync(store: IndexerStore, rpc: Rpc, chainId: number, cursor: number): Promise<ResyncPlan | null> {
  const pending = await store.pendingResyncs(chainId);
  if (pending.length === 0) return null;
  const requestIds = pending.map((r) => r.id);
  const fromBlock = Math.min(...pending.map((r) => r.from_block));
  if (fromBlock > cursor) return { kind: 'nothing', requestIds, fromBlock };
  if (fromBlock === 0) return { kind: 'rollback', requestIds, ancestor: null, fromBlock };
  // At or below the cursor, so the block exists: a backend without it is behind, retried in `Rpc`.
  const [ancestor] = await rpc.requireBlocks([fromBlock - 1]);
  return { kind: 'rollback', requestIds, ancestor: withoutBloom(ancestor), fromBlock };
}
