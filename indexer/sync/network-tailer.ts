import type { Config } from '../../shared/config';
import type { Logger } from '../../shared/logging';
import type { Metrics } from '../../shared/metrics';
import { errorText } from '../rpc/rpc-errors';
import { isFatal, isRpcFailure } from '../errors';
import { handleLogs } from '../handlers/handle-logs';
import type { LivePublisher } from '../publish/live-publisher';
import { backoffDelay, sleep } from '../rpc/backoff';
import { createRangeSizer } from '../rpc/log-range';
import { createRpc, type LightBlock, type Rpc } from '../rpc/rpc';
import type { IndexerStore } from '../store/indexer-store';
import type { StatusStore } from '../store/status-store';
import { StatusReporter } from '../status/status-reporter';
import { historicalSync } from './historical-sync';
import type { RealtimeEvent } from './realtime-sync';
import { loadContext, type NetworkSpec, type TailerContext } from './tailer-context';

export interface TailerDeps {
  config: Config;
  logger: Logger;
  metrics?: Metrics;
  store: IndexerStore;
  statusStore: StatusStore;
  publisher: LivePublisher;
}

export interface NetworkTailer {
  readonly chainId: number;
  /** Settles when the loop ends: stopped, or halted by a fatal error. */
  readonly done: Promise<void>;
  /** Finishes the write in progress, then stops the loop and the heartbeat. */
  stop(): Promise<void>;
}

/**
 * One network's tailer: backfills finalized blocks with `eth_getLogs` ranges, then follows the
 * head block by block, writing every step in one transaction with its cursor. Failures a retry
 * can cure are retried with backoff, forever, while the status reports them; fatal ones (a reorg
 * deeper than the window, a wrong chain, a broken invariant) stop this network loudly.
 */
export function startNetworkTailer(deps: TailerDeps, network: NetworkSpec): NetworkTailer {
  const { config } = deps;
  const chainId = network.chain_id;
  const logger = deps.logger.child({ chain_id: chainId });
  const abort = new AbortController();
  const rpc: Rpc = createRpc({
    urls: network.rpc_urls,
    chainId,
    timeoutMs: config.INDEXER_RPC_TIMEOUT_MS,
    retries: config.INDEXER_RPC_RETRIES,
    backoffMs: config.INDEXER_RPC_BACKOFF_MS,
    backoffMaxMs: config.INDEXER_RPC_BACKOFF_MAX_MS,
    concurrency: config.INDEXER_RPC_CONCURRENCY,
    logger,
    metrics: deps.metrics,
  });
  const sizer = createRangeSizer({ initial: config.INDEXER_INITIAL_BLOCK_RANGE, max: config.INDEXER_MAX_BLOCK_RANGE, targetLogs: config.INDEXER_TARGET_LOGS_PER_RANGE });
  const status = new StatusReporter(deps.statusStore, chainId, config.INDEXER_HEARTBEAT_MS, logger);
  const labels = { chain_id: String(chainId) };
  const m = deps.metrics;
  const reorgs = m?.counter('indexer_reorgs_total', 'Reorgs rolled back', ['chain_id']);
  const logsIndexed = m?.counter('indexer_logs_total', 'Logs written', ['chain_id', 'mode']);
  const cursorGauge = m?.gauge('indexer_cursor_block', 'Last block fully indexed', ['chain_id']);
  const headGauge = m?.gauge('indexer_head_block', 'Head block reported by the RPC', ['chain_id']);

  const advanced = (ctx: TailerContext, to: LightBlock) => {
    ctx.cursor = { block_number: to.number, block_hash: to.hash, block_timestamp: to.timestamp };
    status.update({ cursor: to.number, cursor_timestamp: to.timestamp });
    cursorGauge?.set(labels, to.number);
  };

  async function apply(ctx: TailerContext, ev: RealtimeEvent): Promise<void> {
    if (ev.type === 'block') {
      const changes = handleLogs(ev.logs, ev.timestamps);
      const to = ev.blocks[ev.blocks.length - 1];
      const { filled } = await deps.store.commit({ chainId, contractSet: ctx.sources.contractSet, expected: ctx.cursor, cursor: to, changes, window: { append: ev.blocks } });
      ctx.chain.append(ev.blocks);
      for (const p of ev.created) ctx.sources.pairs.add(p);
      advanced(ctx, to);
      logsIndexed?.inc({ ...labels, mode: 'realtime' }, ev.logs.length);
      await deps.publisher.settled(chainId, filled);
      await deps.publisher.explore(chainId, changes);
    } else if (ev.type === 'reorg') {
      const { reopened, pairs } = await deps.store.rollback({ chainId, contractSet: ctx.sources.contractSet, expected: ctx.cursor, ancestor: ev.ancestor });
      ctx.chain.rewindTo(ev.ancestor);
      // Pairs created in orphaned blocks are gone from the table; watch exactly what remains.
      const kept = await deps.store.load(chainId, ctx.sources.contractSet);
      ctx.sources.pairs.clear();
      for (const p of kept.pairs) ctx.sources.pairs.add(p);
      advanced(ctx, ev.ancestor);
      reorgs?.inc(labels);
      logger.warn({ ancestor: ev.ancestor.number, orphaned: ev.orphaned.map((b) => b.number), reopened_quotes: reopened.length }, 'reorg rolled back');
      await deps.publisher.reopened(chainId, reopened, ev.ancestor.hash);
      await deps.publisher.exploreReorg(chainId, pairs, ev.ancestor);
    } else {
      await deps.store.finalize(chainId, ev.block.number);
      ctx.chain.finalizeTo(ev.block.number);
    }
  }

  async function backfill(ctx: TailerContext, to: number): Promise<void> {
    status.update({ state: 'backfill' });
    const batches = historicalSync(
      { rpc, sources: ctx.sources, sizer, prefetch: config.INDEXER_PREFETCH_RANGES, signal: abort.signal, maxAddresses: config.INDEXER_MAX_ADDRESSES_PER_REQUEST, logger },
      ctx.cursor.block_number + 1,
      to,
    );
    for await (const batch of batches) {
      const started = Date.now();
      const { changes } = batch;
      const { filled } = await deps.store.commit({ chainId, contractSet: ctx.sources.contractSet, expected: ctx.cursor, cursor: batch.toBlock, changes, window: { replace: batch.toBlock } });
      logger.debug({ from: batch.from, to: batch.to, logs: batch.logs.length, fetch_ms: batch.fetchMs, write_ms: Date.now() - started }, 'backfill range written');
      ctx.chain.resetTo(batch.toBlock);
      advanced(ctx, batch.toBlock);
      logsIndexed?.inc({ ...labels, mode: 'backfill' }, batch.logs.length);
      status.update({ last_synced_at: new Date() });
      await deps.publisher.settled(chainId, filled);
      if (abort.signal.aborted) return;
    }
  }

  /** One pass; true when there is more to do at once (no wait before the next pass). */
  async function step(ctx: TailerContext): Promise<boolean> {
    const head = await rpc.latestBlock();
    status.update({ head: head.number, head_timestamp: head.timestamp });
    headGauge?.set(labels, head.number);
    const finalized = head.number - network.confirmations;
    if (ctx.cursor.block_number < finalized) {
      // The tip may have been written while unfinalized and replaced since (say, during a restart).
      let reorged = false;
      for await (const ev of ctx.realtime.checkTip()) {
        await apply(ctx, ev);
        reorged = true;
      }
      if (!reorged) await backfill(ctx, finalized);
      return true;
    }
    status.update({ state: 'realtime' });
    let moved = false;
    for await (const ev of ctx.realtime.sync(head)) {
      await apply(ctx, ev);
      if (ev.type !== 'finalize') moved = true;
    }
    return moved && ctx.cursor.block_number < head.number;
  }

  async function run(): Promise<void> {
    status.start();
    let ctx: TailerContext | null = null;
    let failures = 0;
    while (!abort.signal.aborted) {
      try {
        ctx ??= await loadContext({ config, logger, store: deps.store, rpc, sizer }, network);
        const more = await step(ctx);
        failures = 0;
        status.update({ rpc_ok: true, last_error: null, last_synced_at: new Date() });
        if (!more) await sleep(config.INDEXER_POLL_INTERVAL_MS, abort.signal);
      } catch (err) {
        if (abort.signal.aborted) break;
        const text = errorText(err);
        if (isFatal(err)) {
          logger.fatal({ err: text, kind: (err as Error).name }, 'indexer stopped for this network');
          status.update({ state: 'stopped', last_error: text, rpc_ok: rpc.health().ok }, { now: true });
          return;
        }
        failures++;
        status.update({ last_error: text, rpc_ok: isRpcFailure(err) ? false : status.current.rpc_ok }, { now: true });
        logger.warn({ err: text, kind: (err as Error).name, failures }, 'indexer step failed; retrying');
        // The database is the truth: after any failure the next pass reloads cursor, window and pairs.
        ctx = null;
        await sleep(backoffDelay(failures - 1, Math.max(config.INDEXER_RPC_BACKOFF_MS, 50), Math.max(config.INDEXER_RPC_BACKOFF_MAX_MS, config.INDEXER_POLL_INTERVAL_MS)), abort.signal);
      }
    }
    await status.stop();
  }

  const done = run();
  return {
    chainId,
    done,
    async stop() {
      abort.abort();
      rpc.close();
      await done;
      await status.stop();
    },
  };
}
