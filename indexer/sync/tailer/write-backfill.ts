import { historicalSync } from '../historical-sync';
import type { TailerContext } from '../tailer-context';
import { advanceCursor, type TailerKit } from './tailer-kit';

/**
 * Backfills up to `to` in `eth_getLogs` ranges, each written in one transaction with the cursor,
 * then published. Ranges within reorg reach (from `denseFrom` on) bring every header, so the
 * window fills as it would block by block; older ones leave one window block and their headers
 * as checkpoints. Returns early, between ranges, when stopped or an operator's resync waits.
 */
export async function writeBackfill(kit: TailerKit, ctx: TailerContext, to: number, denseFrom: number): Promise<void> {
  const { deps, chainId, config, logger, status, metrics, abort } = kit;
  status.update({ state: 'backfill' });
  const batches = historicalSync(
    {
      rpc: kit.rpc,
      sources: ctx.sources,
      sizer: kit.sizer,
      prefetch: config.INDEXER_PREFETCH_RANGES,
      signal: abort.signal,
      maxAddresses: config.INDEXER_MAX_ADDRESSES_PER_REQUEST,
      logger,
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
  for await (const batch of batches) {
    const started = Date.now();
    const { changes, dense } = batch;
    const continues = dense.length > 0 && dense[0].number === batch.from && ctx.chain.tip?.hash === dense[0].parentHash;
    const kept = dense.length > 0 ? dense : [batch.toBlock];
    const trimBelow = batch.to - kit.reorgWindow + 1;
    const { filled, crossings, fades } = await deps.store.commit({
      chainId,
      contractSet: ctx.sources.contractSet,
      expected: ctx.cursor,
      cursor: batch.toBlock,
      changes,
      window: continues ? { append: dense } : { replace: kept, checkpoints: batch.headers.filter((h) => h.number >= keepFrom && h.number < kept[0].number) },
      trimBelow,
      pruneBelow: keepFrom,
    });
    logger.debug(
      { from: batch.from, to: batch.to, logs: batch.logs.length, fetch_ms: batch.fetchMs, write_ms: Date.now() - started },
      'backfill range written',
    );
    if (continues) ctx.chain.append(dense);
    else ctx.chain.resetTo(kept);
    ctx.chain.finalizeTo(trimBelow);
    advanceCursor(kit, ctx, batch.toBlock);
    metrics.logsIndexed?.inc({ ...metrics.labels, mode: 'backfill' }, batch.logs.length);
    // A written range proves the RPC answers: a first backfill that takes minutes is not "RPC down".
    status.update({ last_synced_at: new Date(), rpc_ok: true });
    await deps.publisher.settled(chainId, filled);
    // Finalized ranges reach explore watchers too (a network with no confirmations sees every block here);
    // each watcher gets only what is past its snapshot, so nothing arrives twice.
    await deps.publisher.explore(chainId, changes);
    await deps.publisher.loans(chainId, changes, crossings);
    await deps.publisher.fades(chainId, fades);
    if (abort.signal.aborted) return;
    // An operator's resync is served between ranges, at most one check per poll interval.
    if (Date.now() - resyncCheckedAt >= config.INDEXER_POLL_INTERVAL_MS) {
      resyncCheckedAt = Date.now();
      if ((await deps.store.pendingResyncs(chainId)).length > 0) return;
    }
  }
}
