import type { LightBlock } from '../../rpc/rpc';
import type { Committed, Cursor } from '../../store/indexer-store';
import { historicalSync, type HistoricalBatch } from '../historical-sync';
import type { TailerContext } from '../tailer-context';
import { advanceCursor, type TailerKit } from './tailer-kit';

/** A range whose transaction has been started and not yet seen through. */
interface InFlight {
  batch: HistoricalBatch;
  started: number;
  /** The range continues the window (its dense headers are appended) rather than replacing it. */
  continues: boolean;
  kept: LightBlock[];
  trimBelow: number;
  commit: Promise<Committed>;
  /** Resolves once its transaction moved the cursor or failed: the next range's compare-and-set waits for it. */
  cursorMoved: Promise<void>;
}

/**
 * Backfills up to `to` in `eth_getLogs` ranges, each written in one transaction with the cursor,
 * then published. Ranges within reorg reach (from `denseFrom` on) bring every header, so the
 * window fills as it would block by block; older ones leave one window block and their headers
 * as checkpoints. Returns early, between ranges, when stopped or an operator's resync waits.
 *
 * Two ranges are written at once at most, in order: the next range's transaction starts once
 * the previous one has moved the cursor, while it writes the rest of its rows and commits. It
 * writes its own rows (events, transfers: most of a range) first, then moves the cursor by
 * compare-and-set from the previous range's last block, which waits for that commit (the cursor
 * row's lock) and fails if it rolled back; everything else it writes reads what that commit wrote. The tailer's cursor and window move only once a range's commit has returned, in
 * order, and a range is published after its own commit. A crash leaves the last committed range
 * as the cursor: nothing lost, nothing written twice.
 */
export async function writeBackfill(kit: TailerKit, ctx: TailerContext, to: number, denseFrom: number): Promise<void> {
  const { config, status, abort } = kit;
  status.update({ state: 'backfill' });
  const batches = historicalSync(
    {
      rpc: kit.rpc,
      sources: ctx.sources,
      sizer: kit.sizer,
      prefetch: config.INDEXER_PREFETCH_RANGES,
      signal: abort.signal,
      maxAddresses: config.INDEXER_MAX_ADDRESSES_PER_REQUEST,
      logger: kit.logger,
      after: ctx.chain.tip,
      denseFrom,
      checker: kit.checker,
    },
    ctx.cursor.block_number + 1,
    to,
  );
  // Block hashes older than the hard limit can never be an ancestor worth finding.
  const keepFrom = to - config.INDEXER_REORG_MAX_DEPTH;
  let resyncCheckedAt = Date.now();
  let pending: InFlight | null = null;
  let failed = false;
  try {
    for await (const batch of batches) {
      const previous: InFlight | null = pending;
      // Started before the previous range's commit is seen: its cursor and window are where that commit leaves them.
      pending = startCommit(kit, ctx, batch, previous, keepFrom);
      if (previous) await finish(kit, ctx, previous);
      if (abort.signal.aborted) return;
      // An operator's resync is served between ranges, at most one check per poll interval.
      if (Date.now() - resyncCheckedAt >= config.INDEXER_POLL_INTERVAL_MS) {
        resyncCheckedAt = Date.now();
        if ((await kit.deps.store.pendingResyncs(kit.chainId)).length > 0) return;
      }
    }
  } catch (err) {
    failed = true;
    throw err;
  } finally {
    // The range still in flight is seen through before returning: committed, it moves the cursor
    // and is published; failed after another failure (its compare-and-set found the previous
    // range rolled back), that first failure is the one raised.
    if (pending) {
      const last = finish(kit, ctx, pending);
      if (failed) await last.catch(() => undefined);
      else await last;
    }
  }
}

/**
 * Starts the transaction of `batch`. `previous` is the range committing before it (null: none is
 * in flight, the tailer's cursor and window are current).
 */
function startCommit(kit: TailerKit, ctx: TailerContext, batch: HistoricalBatch, previous: InFlight | null, keepFrom: number): InFlight {
  const { dense } = batch;
  const after = previous?.batch.toBlock ?? null;
  // A range's last block is the window's tip once it is written (its dense headers end at it, or it alone is kept).
  const tip = after ?? ctx.chain.tip;
  const expected: Cursor = after ? { block_number: after.number, block_hash: after.hash, block_timestamp: after.timestamp } : ctx.cursor;
  const continues = dense.length > 0 && dense[0].number === batch.from && tip?.hash === dense[0].parentHash;
  const kept = dense.length > 0 ? dense : [batch.toBlock];
  const trimBelow = batch.to - kit.reorgWindow + 1;
  let moved!: () => void;
  const cursorMoved = new Promise<void>((resolve) => (moved = resolve));
  const commit = kit.deps.store.commit({
    chainId: kit.chainId,
    contractSet: ctx.sources.contractSet,
    expected,
    cursor: batch.toBlock,
    changes: batch.changes,
    window: continues ? { append: dense } : { replace: kept, checkpoints: batch.headers.filter((h) => h.number >= keepFrom && h.number < kept[0].number) },
    trimBelow,
    pruneBelow: keepFrom,
    previousCursorMoved: previous?.cursorMoved,
    onCursorMoved: moved,
  });
  // A range that failed before moving the cursor releases the next, whose compare-and-set then fails.
  // Awaited in order by `finish`; this only keeps a failure seen later from being unhandled meanwhile.
  commit.then(moved, moved);
  return { batch, started: Date.now(), continues, kept, trimBelow, commit, cursorMoved };
}

/** Waits for a range's commit, then moves the tailer's window and cursor to it and publishes it. */
async function finish(kit: TailerKit, ctx: TailerContext, f: InFlight): Promise<void> {
  const { deps, chainId, logger, status, metrics } = kit;
  const { batch } = f;
  const { filled, crossings, fades } = await f.commit;
  logger.debug(
    { from: batch.from, to: batch.to, logs: batch.logs.length, fetch_ms: batch.fetchMs, write_ms: Date.now() - f.started },
    'backfill range written',
  );
  if (f.continues) ctx.chain.append(batch.dense);
  else ctx.chain.resetTo(f.kept);
  ctx.chain.finalizeTo(f.trimBelow);
  advanceCursor(kit, ctx, batch.toBlock);
  metrics.logsIndexed?.inc({ ...metrics.labels, mode: 'backfill' }, batch.logs.length);
  // A written range proves the RPC answers: a first backfill that takes minutes is not "RPC down".
  status.update({ last_synced_at: new Date(), rpc_ok: true });
  await deps.publisher.settled(chainId, filled);
  // Finalized ranges reach explore watchers too (a network with no confirmations sees every block here);
  // each watcher gets only what is past its snapshot, so nothing arrives twice.
  await deps.publisher.explore(chainId, batch.changes);
  await deps.publisher.loans(chainId, batch.changes, crossings);
  await deps.publisher.fades(chainId, fades);
}
