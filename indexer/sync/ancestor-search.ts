import { ChainInconsistencyError } from '../errors';
import type { LightBlock, Rpc } from '../rpc/rpc';
import type { StoredHash } from '../store/indexer-store';

export interface AncestorSearchArgs {
  rpc: Rpc;
  /** Stored hashes below `below` (exclusive), newest first, at most `limit`: the window, then the checkpoints. */
  storedBelow(below: number, limit: number): Promise<StoredHash[]>;
  /** The search starts here (inclusive) and goes down. */
  from: number;
  /** The lowest block it may settle on: the hard limit (INDEXER_REORG_MAX_DEPTH under the tip). */
  floor: number;
  /**
   * A block no indexed row is at or below (the block before the network's start), used when no
   * stored hash matches: what lies under it was never derived, so the node's header is taken as
   * it is. -1 means genesis; null when unknown.
   */
  fallback: number | null;
  /** Headers compared per JSON-RPC batch. */
  batch: number;
}

/** The common ancestor (null: before genesis), or how far down the search went without one. */
export type AncestorSearchResult = { found: true; ancestor: LightBlock | null } | { found: false; searchedDownTo: number };

/**
 * Finds the newest stored block the node still has at the same height with the same hash: a
 * block hash commits to every block below it, so everything derived up to there is still right
 * and only what is above needs undoing. Stored hashes are compared with the node's headers
 * `batch` at a time, newest first, never below `floor`; the cost follows the reorg's depth, not
 * the history's. Checkpoints are sparse below the window: the block found may lie under the
 * real fork point, which only means a few more blocks are derived again.
 */
export async function findCommonAncestor(args: AncestorSearchArgs): Promise<AncestorSearchResult> {
  let below = args.from + 1;
  let lowest = args.from + 1;
  while (below > args.floor) {
    const stored = (await args.storedBelow(below, args.batch)).filter((s) => s.number >= args.floor);
    if (stored.length === 0) break;
    const canonical = await args.rpc.blocksByNumber(stored.map((s) => s.number));
    for (const [i, s] of stored.entries()) {
      const c = canonical[i];
      if (c && c.hash === s.hash) return { found: true, ancestor: c };
    }
    lowest = stored[stored.length - 1].number;
    below = lowest;
  }
  const fallback = args.fallback;
  if (fallback !== null && fallback >= args.floor) {
    if (fallback < 0) return { found: true, ancestor: null };
    const header = await args.rpc.blockByNumber(fallback);
    if (!header) throw new ChainInconsistencyError(`node has no block ${fallback}, below blocks it reported`);
    return { found: true, ancestor: header };
  }
  return { found: false, searchedDownTo: Math.min(lowest, args.from) };
}
