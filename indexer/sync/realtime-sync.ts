import type { Logger } from '../../shared/platform/logging';
import type { DecodedLog } from '../chain-events/decode-log';
import { ChainInconsistencyError, ChainReplacedError, ReorgTooDeepError } from '../errors';
import type { RangeSizer } from '../rpc/log-range';
import { withoutBloom, type Hex, type LightBlock, type Rpc } from '../rpc/rpc';
import { RpcRequestRejectedError } from '../rpc/rpc-errors';
import type { StoredHash } from '../store/indexer-store';
import { findCommonAncestor } from './ancestor-search';
import { assertLogsMatchHeaders, decodeAll, fetchAdaptive, fetchBlockLogs } from './fetch-logs';
import type { BloomChecker } from './log-completeness';
import type { Sources } from './sources';
import type { UnfinalizedChain } from './unfinalized-chain';

/**
 * What the realtime sync tells its consumer, in order. The consumer writes each event, then
 * applies it to the `UnfinalizedChain` (append / rewind / finalize) before asking for the next.
 * - `block`: consecutive new blocks that extend the local tip, with their logs;
 * - `reorg`: the blocks above `ancestor` are no longer canonical; undo them. The ancestor is in
 *   the window, or (a reorg deeper than the window) a block below it whose hash a checkpoint
 *   vouches for; null means the network is re-derived from genesis;
 * - `finalize`: blocks up to `block` leave the window (they become checkpoints).
 */
export type RealtimeEvent =
  | { type: 'block'; blocks: LightBlock[]; logs: DecodedLog[]; timestamps: Map<number, number>; created: string[] }
  | { type: 'reorg'; ancestor: LightBlock | null; orphaned: LightBlock[]; depth: number }
  | { type: 'finalize'; block: LightBlock };

/** Parent hashes followed one by one before the search switches to comparing stored hashes in batches. */
const WALK_STEPS = 32;
/** Headers compared per JSON-RPC batch in an ancestor search. */
const SEARCH_BATCH = 100;

export interface RealtimeSyncArgs {
  rpc: Rpc;
  sources: Sources;
  chain: UnfinalizedChain;
  /** Blocks the window keeps (the network's reorg window); older ones leave it as checkpoints. */
  window: number;
  /** The hard limit: an ancestor more than this far under the tip halts the network. */
  maxDepth: number;
  /** The network's first indexed block (null if unknown): nothing is derived below it. */
  startBlock: number | null;
  /** The hash of block 0 of the chain the network was indexed from (null if not recorded). */
  genesis: Hex | null;
  /** Checkpoints below `below`, newest first. */
  checkpointsBelow(below: number, limit: number): Promise<StoredHash[]>;
  /** Most blocks taken in one `block` event: behind the head, one transaction covers this many. */
  batchBlocks: number;
  sizer: RangeSizer;
  maxAddresses: number;
  /** Holds a range's logs answer against its headers' blooms (`log-completeness.ts`). */
  checker: BloomChecker;
  logger: Logger;
}

export interface RealtimeSync {
  /** Brings the local chain towards `head`: yields at most one `block` (or one `reorg`), then maybe a `finalize`. */
  sync(head: LightBlock): AsyncGenerator<RealtimeEvent>;
  /** Checks that the local tip is still canonical (before a backfill resumes from it); yields a `reorg` if not. */
  checkTip(): AsyncGenerator<RealtimeEvent>;
}

export function createRealtimeSync(args: RealtimeSyncArgs): RealtimeSync {
  const { rpc, chain, logger } = args;
  const chainId = args.sources.chainId;

  /**
   * Finds where `remote` (a canonical block that does not extend our chain) meets our chain.
   * First its parents are followed by hash, a few steps: a shallow reorg is found within the
   * window in as many calls as it is deep, and the walk stays on one fork even if a provider's
   * backends disagree about heights. Past that, stored hashes (window, then checkpoints) are
   * compared with the node's in batches down to the hard limit.
   */
  async function* reconcile(remote: LightBlock): AsyncGenerator<RealtimeEvent> {
    // A node that now serves another chain (a devchain started again) differs from ours at every
    // height, down to block 0: that is not a reorg, and the tailer starts the network over.
    if (args.genesis !== null) {
      const zero = await rpc.blockByNumber(0);
      if (zero && zero.hash !== args.genesis) throw new ChainReplacedError(chainId, args.genesis, zero.hash);
    }
    let cursor = remote;
    for (let step = 0; step < WALK_STEPS; step++) {
      const local = chain.get(cursor.number - 1);
      if (!local) break;
      if (local.hash === cursor.parentHash) {
        yield reorgTo(local, remote);
        return;
      }
      // The node named this parent: a backend that does not have it is behind, and is retried in `Rpc`.
      cursor = await rpc.requireBlockByHash(cursor.parentHash);
    }
    const tip = chain.tip!;
    const window = chain.all();
    const result = await findCommonAncestor({
      rpc,
      storedBelow: async (below, limit) => {
        const fromWindow = window
          .filter((b) => b.number < below)
          .reverse()
          .slice(0, limit);
        if (fromWindow.length === limit) return fromWindow;
        const lowest = fromWindow.length > 0 ? fromWindow[fromWindow.length - 1].number : Math.min(below, chain.base!.number);
        return [...fromWindow, ...(await args.checkpointsBelow(lowest, limit - fromWindow.length))];
      },
      from: tip.number,
      floor: tip.number - args.maxDepth,
      fallback: args.startBlock === null ? null : args.startBlock - 1,
      batch: SEARCH_BATCH,
    });
    if (!result.found) throw new ReorgTooDeepError(chainId, result.searchedDownTo, args.maxDepth, args.startBlock ?? 0);
    if (result.ancestor?.number === tip.number) {
      // Our tip is still canonical by number: the provider named a block of a stray fork.
      throw new ChainInconsistencyError(`block ${remote.number} does not lead back to our chain, yet our tip ${tip.number} is still canonical`);
    }
    yield reorgTo(result.ancestor, remote);
  }

  function reorgTo(ancestor: LightBlock | null, remote: LightBlock): RealtimeEvent {
    const at = ancestor?.number ?? -1;
    const orphaned = chain.all().filter((b) => b.number > at);
    const depth = chain.tip!.number - at;
    logger.warn({ ancestor: at, depth, new_block: remote.number, window: chain.length }, 'reorg: rolling back to the common ancestor');
    return { type: 'reorg', ancestor, orphaned, depth };
  }

  let byHash = true;

  /**
   * The logs of consecutive new blocks. One block is read by its hash (EIP-234), where a backend
   * without it errors instead of answering empty; a provider that refuses that form, and a step
   * of several blocks, read the range, held against the blocks' blooms before it is accepted.
   */
  async function readLogs(blocks: LightBlock[]) {
    const opts = { maxAddresses: args.maxAddresses, logger };
    if (blocks.length === 1 && byHash) {
      try {
        return await fetchBlockLogs(rpc, args.sources, args.sources.pairs, blocks[0], opts);
      } catch (err) {
        if (!(err instanceof RpcRequestRejectedError)) throw err;
        byHash = false;
        logger.warn({ err: err.message }, 'the provider refuses eth_getLogs by block hash; reading ranges checked against header blooms');
      }
    }
    const from = blocks[0].number;
    const to = blocks[blocks.length - 1].number;
    const verify = { checker: args.checker, index: args.checker.index(blocks) };
    return fetchAdaptive(rpc, args.sources, args.sources.pairs, from, to, args.sizer, { ...opts, verify });
  }

  /** Whether `head` (at or below our tip) is a block we already have: a lagging provider, not a reorg. */
  function isKnown(block: LightBlock): boolean {
    return chain.get(block.number)?.hash === block.hash;
  }

  return {
    async *checkTip() {
      const tip = chain.tip;
      if (!tip) return;
      // Asked only when the head is above the tip, so the block exists: a null is a backend behind, retried in `Rpc`.
      const [canonical] = await rpc.requireBlocks([tip.number]);
      if (canonical.hash !== tip.hash) yield* reconcile(canonical);
    },

    async *sync(head) {
      const tip = chain.tip;
      if (tip && head.number <= tip.number) {
        if (isKnown(head) || head.number < chain.base!.number) {
          // A provider behind us (or one backend of a pool lagging): never treat it as a reorg.
          if (head.number < tip.number) logger.debug({ head: head.number, tip: tip.number }, 'provider head is behind our tip');
          return;
        }
        yield* reconcile(head);
        return;
      }
      const from = tip ? tip.number + 1 : 0;
      const to = Math.min(head.number, from + args.batchBlocks - 1);
      const numbers = Array.from({ length: to - from + 1 }, (_, i) => from + i);
      // Every block up to the head exists: a header missing below it is a backend behind, retried in `Rpc`.
      const fetched = to === head.number ? [...(await rpc.requireBlocks(numbers.slice(0, -1))), head] : await rpc.requireBlocks(numbers);
      const blocks: LightBlock[] = [];
      for (const [i, b] of fetched.entries()) {
        if (i > 0 && b.parentHash !== blocks[i - 1].hash) throw new ChainInconsistencyError(`fetched blocks ${b.number - 1} and ${b.number} do not link`);
        blocks.push(b);
      }
      if (tip && blocks[0].parentHash !== tip.hash) {
        yield* reconcile(blocks[0]);
        return;
      }
      const { logs, created } = await readLogs(blocks);
      assertLogsMatchHeaders(logs, new Map(blocks.map((b) => [b.number, b])));
      yield {
        type: 'block',
        blocks: blocks.map(withoutBloom),
        logs: decodeAll(logs, args.sources, created, logger),
        timestamps: new Map(blocks.map((b) => [b.number, b.timestamp])),
        created,
      };
      const leaving = chain.get(to - args.window + 1);
      if (leaving && leaving.number > chain.base!.number) yield { type: 'finalize', block: leaving };
    },
  };
}
