import type { AuditState } from '../../shared/indexed';
import type { Logger } from '../../shared/platform/logging';
import type { Metrics } from '../../shared/platform/metrics';
import type { RangeSizer } from '../rpc/log-range';
import type { Rpc } from '../rpc/rpc';
import type { IndexerStore } from '../store/indexer-store';
import { decodeAll, fetchAdaptive } from './fetch-logs';
import type { BloomChecker } from './log-completeness';
import type { Sources } from './sources';

/**
 * The standing audit: the indexer checks itself. Finalized blocks, from `depth` below the
 * indexed tip up to it, are read again from the chain (with the same completeness proof as any
 * read) at `blocksPerMinute`, and what the read decodes is compared, log by log, with what the
 * database holds for those blocks. On any difference the network is re-derived from the first
 * block that differs (a resync request, served by the tailer between two steps like an
 * operator's), and a log line, `rfq_indexer_audit_differences_total` and the status say so.
 * When the sweep reaches the tip it starts again from `depth` below it.
 */
export interface AuditArgs {
  chainId: number;
  rpc: Rpc;
  store: IndexerStore;
  checker: BloomChecker;
  sizer: RangeSizer;
  maxAddresses: number;
  depth: number;
  blocksPerMinute: number;
  intervalMs: number;
  logger: Logger;
  metrics?: Metrics;
}

export interface Audit {
  readonly state: AuditState;
  /**
   * Reads and compares the next slice (the caller paces the calls, one per `intervalMs`); `top` is the highest final, indexed block,
   * `floor` the network's first, `tip` the indexed tip (a difference counts only while it is canonical).
   * `undisturbed`: false once the tailer has rolled back or reloaded since the slice began (a
   * difference then may be the rollback's own delete).
   */
  tick(sources: Sources, top: number, floor: number, tip: { number: number; hash: string | null }, undisturbed?: () => boolean): Promise<void>;
}

export function createAudit(args: AuditArgs): Audit {
  const state: AuditState = {
    enabled: args.blocksPerMinute > 0,
    depth_blocks: args.depth,
    blocks_per_minute: args.blocksPerMinute,
    next_block: null,
    passes: 0,
    last_pass_at: null,
    blocks_checked: 0,
    differences_total: 0,
    last_difference: null,
  };
  const differences = args.metrics?.counter('rfq_indexer_audit_differences_total', 'Logs the standing audit found stored wrongly or missing', ['chain_id']);
  const slice = Math.max(1, Math.round((args.blocksPerMinute * args.intervalMs) / 60_000));

  async function tipIsCanonical(tip: { number: number; hash: string | null }): Promise<boolean> {
    const [node] = await args.rpc.requireBlocks([tip.number]);
    return node.hash === tip.hash;
  }

  return {
    state,
    async tick(sources, top, floor, tip, undisturbed = () => true) {
      if (!state.enabled || top < floor) return;
      const lowest = Math.max(floor, top - args.depth + 1);
      const from = state.next_block === null || state.next_block < lowest || state.next_block > top ? lowest : state.next_block;
      const to = Math.min(top, from + slice - 1);
      // Every pair known now: one created above `from` logged nothing before its creation.
      const known = new Set(sources.pairs);
      const index = args.checker.index(await args.rpc.requireBlocks(Array.from({ length: to - from + 1 }, (_, i) => from + i)));
      const { logs, created } = await fetchAdaptive(args.rpc, sources, known, from, to, args.sizer, {
        maxAddresses: args.maxAddresses,
        logger: args.logger,
        verify: { checker: args.checker, index },
      });
      const fresh = decodeAll(logs, sources, created, args.logger).map((l) => `${l.meta.blockNumber}:${l.meta.blockHash}:${l.meta.logIndex}`);
      const stored = await args.store.storedLogKeys(args.chainId, from, to);
      const missing = minus(fresh, stored);
      const unexpected = minus(stored, fresh);
      state.blocks_checked += to - from + 1;
      if ((missing.length > 0 || unexpected.length > 0) && !(await tipIsCanonical(tip))) {
        // The chain moved under the tip: a reorg (even one deeper than the window, as a devchain's
        // revert makes), which the tailer's next step rolls back. Not a fault; read this slice again later.
        args.logger.debug({ range: [from, to], tip: tip.number }, 'indexer audit: the tip is no longer canonical; leaving the difference to the reorg');
        return;
      }
      if ((missing.length > 0 || unexpected.length > 0) && !undisturbed()) {
        // A rollback ran while the slice was read (the resync of a difference found just before,
        // or a reorg): the stored side may be its delete. The slice is read again.
        args.logger.debug({ range: [from, to] }, 'indexer audit: a rollback ran during the slice; reading it again');
        return;
      }
      if (missing.length > 0 || unexpected.length > 0) {
        const first = Math.min(...[...missing, ...unexpected].map((k) => Number(k.split(':')[0])));
        const request = await args.store.requestResync(args.chainId, first);
        state.differences_total += missing.length + unexpected.length;
        state.last_difference = {
          at: new Date().toISOString(),
          from_block: first,
          missing: missing.length,
          unexpected: unexpected.length,
          resync_request: request,
        };
        differences?.inc({ chain_id: String(args.chainId) }, missing.length + unexpected.length);
        args.logger.error(
          {
            from_block: first,
            range: [from, to],
            missing: missing.slice(0, 5),
            unexpected: unexpected.slice(0, 5),
            missing_count: missing.length,
            unexpected_count: unexpected.length,
            resync_request: request,
          },
          'indexer audit: stored logs differ from the chain; re-deriving from the first block that differs',
        );
      }
      state.next_block = to + 1;
      if (to >= top) {
        state.passes++;
        state.last_pass_at = new Date().toISOString();
        state.next_block = null;
      }
    },
  };
}

/** Items of `a` not in `b`, counting repeats (a log stored twice is a difference too). */
function minus(a: readonly string[], b: readonly string[]): string[] {
  const left = new Map<string, number>();
  for (const k of b) left.set(k, (left.get(k) ?? 0) + 1);
  const out: string[] = [];
  for (const k of a) {
    const n = left.get(k) ?? 0;
    if (n > 0) left.set(k, n - 1);
    else out.push(k);
  }
  return out;
}
