import type { Logger } from '../../shared/logging';
import type { DecodedLog } from '../decode/decode-log';
import { ChainInconsistencyError, DeepReorgError } from '../errors';
import type { RangeSizer } from '../rpc/log-range';
import type { LightBlock, Rpc } from '../rpc/rpc';
import { assertLogsMatchHeaders, decodeAll, fetchAdaptive } from './fetch-logs';
import type { Sources } from './sources';
import type { UnfinalizedChain } from './unfinalized-chain';

/**
 * What the realtime sync tells its consumer, in order. The consumer writes each event, then
 * applies it to the `UnfinalizedChain` (append / rewind / finalize) before asking for the next.
 * - `block`: consecutive new blocks that extend the local tip, with their logs;
 * - `reorg`: the blocks above `ancestor` are no longer canonical; undo them;
 * - `finalize`: blocks up to `block` can no longer be reorganised; stop keeping them.
 */
export type RealtimeEvent =
  | { type: 'block'; blocks: LightBlock[]; logs: DecodedLog[]; timestamps: Map<number, number>; created: string[] }
  | { type: 'reorg'; ancestor: LightBlock; orphaned: LightBlock[] }
  | { type: 'finalize'; block: LightBlock };

export interface RealtimeSyncArgs {
  rpc: Rpc;
  sources: Sources;
  chain: UnfinalizedChain;
  confirmations: number;
  /** Most blocks taken in one `block` event: behind the head, one transaction covers this many. */
  batchBlocks: number;
  sizer: RangeSizer;
  maxAddresses: number;
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
   * Walks back from `remote` (a canonical block that does not extend our chain) along its
   * parents until one is in the local window. Parents are fetched by hash, so the walk follows
   * one fork even if the provider's backends disagree about heights.
   */
  async function* reconcile(remote: LightBlock): AsyncGenerator<RealtimeEvent> {
    let cursor = remote;
    for (;;) {
      const local = chain.get(cursor.number - 1);
      if (!local) break;
      if (local.hash === cursor.parentHash) {
        const orphaned = chain.all().filter((b) => b.number > local.number);
        logger.warn({ ancestor: local.number, depth: orphaned.length, new_block: remote.number }, 'reorg: rolling back to the common ancestor');
        yield { type: 'reorg', ancestor: local, orphaned };
        return;
      }
      const parent = await rpc.blockByHash(cursor.parentHash);
      if (!parent) throw new ChainInconsistencyError(`node named parent ${cursor.parentHash} of block ${cursor.number} but does not have it`);
      cursor = parent;
    }
    // The walk left the window without meeting our chain. A provider mixing forks can fake that,
    // so the claim is checked once more against our base before the network is stopped.
    const base = chain.base!;
    const canonical = await rpc.blockByNumber(base.number);
    if (!canonical || canonical.hash === base.hash) {
      throw new ChainInconsistencyError(`block ${remote.number} does not lead back to our chain, yet our base ${base.number} is still canonical`);
    }
    throw new DeepReorgError(
      chainId,
      base.number,
      `chain ${chainId} reorganised below block ${base.number}, the oldest block kept (confirmations ${args.confirmations}): ` +
        `block ${base.number} is now ${canonical.hash}, was ${base.hash}. Indexed data from that depth may be wrong; ` +
        `raise the network's confirmations and re-index it (ops) before restarting`,
    );
  }

  /** Whether `head` (at or below our tip) is a block we already have: a lagging provider, not a reorg. */
  function isKnown(block: LightBlock): boolean {
    return chain.get(block.number)?.hash === block.hash;
  }

  return {
    async *checkTip() {
      const tip = chain.tip;
      if (!tip) return;
      const canonical = await rpc.blockByNumber(tip.number);
      if (!canonical) throw new ChainInconsistencyError(`node has no block ${tip.number}, our tip: it is behind`);
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
      const fetched = to === head.number ? [...(await rpc.blocksByNumber(numbers.slice(0, -1))), head] : await rpc.blocksByNumber(numbers);
      const blocks: LightBlock[] = [];
      for (const [i, b] of fetched.entries()) {
        if (!b) throw new ChainInconsistencyError(`node has no block ${numbers[i]} below its head ${head.number}`);
        if (i > 0 && b.parentHash !== blocks[i - 1].hash) throw new ChainInconsistencyError(`fetched blocks ${b.number - 1} and ${b.number} do not link`);
        blocks.push(b);
      }
      if (tip && blocks[0].parentHash !== tip.hash) {
        yield* reconcile(blocks[0]);
        return;
      }
      const { logs, created } = await fetchAdaptive(rpc, args.sources, args.sources.pairs, from, to, args.sizer, {
        maxAddresses: args.maxAddresses,
        logger,
      });
      assertLogsMatchHeaders(logs, new Map(blocks.map((b) => [b.number, b])));
      yield {
        type: 'block',
        blocks,
        logs: decodeAll(logs, args.sources, created, logger),
        timestamps: new Map(blocks.map((b) => [b.number, b.timestamp])),
        created,
      };
      const finalized = chain.get(to - args.confirmations);
      if (finalized && finalized.number > chain.base!.number) yield { type: 'finalize', block: finalized };
    },
  };
}
