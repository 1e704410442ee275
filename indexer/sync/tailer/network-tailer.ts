import type { NetworkSpec } from '../tailer-context';
import { auditLoop, tailLoop } from './tail-loop';
import { createTailerKit, type TailerDeps } from './tailer-kit';

export interface NetworkTailer {
  readonly chainId: number;
  /** Settles when the loop ends (stopped). A tailer halted by a fatal error keeps waiting for a resync request. */
  readonly done: Promise<void>;
  /** Finishes the write in progress, then stops the loop and the heartbeat. */
  stop(): Promise<void>;
}

/**
 * One network's tailer: backfills finalized blocks with `eth_getLogs` ranges, then follows the
 * head block by block, writing every step in one transaction with its cursor. Reorgs of any
 * depth down to INDEXER_REORG_MAX_DEPTH are rolled back and re-synced. Between steps it serves
 * operators' resync requests. Failures a retry can cure are retried with backoff, forever, while
 * the status reports them; fatal ones (a reorg beyond the hard limit, a wrong chain, a broken
 * invariant) halt this network loudly: it writes nothing more until a resync request comes.
 *
 * Its named steps, one file each beside this one: what it builds once (tailer-kit.ts), the loop
 * and its error policy, and the audit beside it (tail-loop.ts), one pass (tail-step.ts), a
 * backfill (write-backfill.ts), a realtime event (apply-realtime.ts), a rollback and an
 * operator's resync (roll-back.ts).
 */
export function startNetworkTailer(deps: TailerDeps, network: NetworkSpec): NetworkTailer {
  const kit = createTailerKit(deps, network);
  const done = tailLoop(kit);
  const audited = deps.config.INDEXER_AUDIT_BLOCKS_PER_MINUTE > 0 ? auditLoop(kit) : Promise.resolve();
  return {
    chainId: kit.chainId,
    done,
    async stop() {
      kit.abort.abort();
      kit.heads.close();
      kit.rpc.close();
      await done;
      await audited;
      await kit.status.stop();
    },
  };
}
