import { ChainReplacedError, errorCode, FatalIndexerError } from '../../errors';
import { backoffDelay, sleep } from '../../rpc/backoff';
import { errorText, RpcFailureError } from '../../rpc/rpc-errors';
import type { StatusRow } from '../../store/status-store';
import { loadContext, type TailerContext } from '../tailer-context';
import { tell } from './roll-back';
import { tailStep } from './tail-step';
import type { TailerKit } from './tailer-kit';

/** Records a failure in the status: a fixed code for the API, the text for the logs and operators. */
function recordFailure(kit: TailerKit, err: unknown, patch: Partial<StatusRow> = {}): string {
  const text = errorText(err);
  kit.status.update({ last_error: text, error_code: errorCode(err), provider: kit.rpc.providerState(), ...patch }, { now: true });
  return text;
}

/**
 * The tail loop, until stopped: loads the context (cursor, window, pairs) from the database,
 * runs passes, and waits for the next head between them. Its error policy is the error's base
 * class: a FatalIndexerError halts the network until an operator asks for a resync, anything
 * else is retried with backoff, forever, after reloading the context.
 */
export async function tailLoop(kit: TailerKit): Promise<void> {
  const { deps, config, logger, status, abort } = kit;
  status.start();
  let ctx: TailerContext | null = null;
  let failures = 0;
  let halted = false;
  while (!abort.signal.aborted) {
    try {
      if (halted) {
        // Halted: nothing is written until an operator asks for a resync, which may cure it.
        await sleep(config.INDEXER_POLL_INTERVAL_MS, abort.signal);
        if (abort.signal.aborted || (await deps.store.pendingResyncs(kit.chainId)).length === 0) continue;
        halted = false;
        status.update({ state: 'starting', error_code: null, action: null, last_error: null }, { now: true });
        logger.warn('resync requested: resuming the halted network');
      }
      if (!ctx) {
        ctx = await loadContext({ config, logger, store: deps.store, rpc: kit.rpc, sizer: kit.sizer, checker: kit.checker }, kit.network);
        // The network was started over (a new chain under it): told as a rollback to before genesis.
        if (ctx.undone) {
          const { undone } = ctx;
          ctx.undone = null;
          status.update({ cursor: ctx.cursor.block_number, cursor_timestamp: null });
          await tell(kit, undone.effects, { number: -1, hash: null, key: undone.key });
        }
      }
      kit.live = ctx;
      const more = await tailStep(kit, ctx);
      failures = 0;
      status.update({
        rpc_ok: true,
        last_error: null,
        error_code: null,
        last_synced_at: new Date(),
        provider: kit.rpc.providerState(),
        audit: { ...kit.audit.state },
      });
      if (!more) await kit.heads.wait(config.INDEXER_POLL_INTERVAL_MS, abort.signal);
    } catch (err) {
      if (abort.signal.aborted) break;
      // The database is the truth: after any failure the next pass reloads cursor, window and pairs.
      ctx = null;
      kit.live = null;
      // Not a failure: the node serves a new chain, and reloading starts the network over on it.
      if (err instanceof ChainReplacedError) continue;
      // The error's base class is the whole policy: fatal halts, anything else is retried.
      if (err instanceof FatalIndexerError) {
        const action = err.action;
        const text = recordFailure(kit, err, { state: 'stopped', action, rpc_ok: kit.rpc.health().ok });
        logger.fatal({ err: text, kind: (err as Error).name, action }, 'indexer halted for this network');
        halted = true;
        continue;
      }
      failures++;
      const text = recordFailure(kit, err, { rpc_ok: err instanceof RpcFailureError ? false : status.current.rpc_ok });
      logger.warn({ err: text, kind: (err as Error).name, failures }, 'indexer step failed; retrying');
      await sleep(
        backoffDelay(failures - 1, Math.max(config.INDEXER_RPC_BACKOFF_MS, 50), Math.max(config.INDEXER_RPC_BACKOFF_MAX_MS, config.INDEXER_POLL_INTERVAL_MS)),
        abort.signal,
      );
    }
  }
  await status.stop();
}

/**
 * The standing audit, beside the tail loop rather than in it: a slice under a slow provider
 * must not delay the head. It reads final blocks only (out of reach of both the confirmations
 * and the window: a block that may still be reorganised is realtime sync's business), writes
 * nothing but a resync request, and skips while the loop has no context.
 */
export async function auditLoop(kit: TailerKit): Promise<void> {
  const { config, abort } = kit;
  while (!abort.signal.aborted) {
    await sleep(config.INDEXER_AUDIT_INTERVAL_MS, abort.signal);
    const ctx = kit.live;
    if (!ctx || abort.signal.aborted) continue;
    // A rollback running or run while the slice is read deletes what it compares with (kit.rollbacks).
    const rollbacks = kit.rollbacks;
    if (rollbacks % 2 === 1) continue;
    const undisturbed = () => kit.rollbacks === rollbacks && kit.live === ctx;
    try {
      await kit.audit.tick(
        ctx.sources,
        Math.min(ctx.cursor.block_number - kit.reorgWindow, kit.lastHead - kit.network.confirmations),
        ctx.startBlock ?? 0,
        { number: ctx.cursor.block_number, hash: ctx.cursor.block_hash },
        undisturbed,
      );
    } catch (err) {
      if (!abort.signal.aborted) kit.logger.warn({ err: errorText(err) }, 'indexer audit slice failed; trying it again at the next interval');
    }
  }
}
