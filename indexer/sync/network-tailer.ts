import type { Config } from '../../shared/platform/config';
import type { Logger } from '../../shared/platform/logging';
import type { Metrics } from '../../shared/platform/metrics';
import { errorText, RpcFailureError } from '../rpc/rpc-errors';
import { BackfillReorgedError, ChainReplacedError, errorCode, FatalIndexerError } from '../errors';
import { handleLogs } from '../projectors/handle-logs';
import type { LivePublisher, RollbackPoint } from '../publish/live-publisher';
import { backoffDelay, sleep } from '../rpc/backoff';
import { createRangeSizer } from '../rpc/log-range';
import { createRpc, type LightBlock, type Rpc } from '../rpc/rpc';
import { pollOnly, subscribeNewHeads, wsUrls, type HeadSignal } from '../rpc/new-heads';
import type { IndexerStore, RollbackCause, RollbackEffects } from '../store/indexer-store';
import type { StatusRow, StatusStore } from '../store/status-store';
import { StatusReporter } from '../status/status-reporter';
import { EVENT_SELECTORS } from '../decode/decode-log';
import { historicalSync } from './historical-sync';
import { createAudit } from './audit';
import { createBloomChecker } from './log-completeness';
import type { RealtimeEvent } from './realtime-sync';
import { reorgWindowFor } from './reorg-window';
import { planResync } from './resync';
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
 */
export function startNetworkTailer(deps: TailerDeps, network: NetworkSpec): NetworkTailer {
  const { config } = deps;
  const chainId = network.chain_id;
  const logger = deps.logger.child({ chain_id: chainId });
  const abort = new AbortController();
  // Calls go over HTTP; a ws(s):// URL only wakes the realtime path (rpc/new-heads.ts). A list of
  // ws URLs alone is called over the same host's HTTP endpoint (nodes serve both on one port).
  const http = network.rpc_urls.filter((u) => !/^wss?:\/\//i.test(u));
  const rpc: Rpc = createRpc({
    urls: http.length > 0 ? http : network.rpc_urls.map((u) => u.replace(/^ws/i, 'http')),
    chainId,
    timeoutMs: config.INDEXER_RPC_TIMEOUT_MS,
    retries: config.INDEXER_RPC_RETRIES,
    backoffMs: config.INDEXER_RPC_BACKOFF_MS,
    backoffMaxMs: config.INDEXER_RPC_BACKOFF_MAX_MS,
    concurrency: config.INDEXER_RPC_CONCURRENCY,
    hedgeMinMs: config.INDEXER_RPC_HEDGE_MIN_MS,
    logger,
    metrics: deps.metrics,
  });
  const [wsUrl] = wsUrls(network.rpc_urls);
  const heads: HeadSignal = wsUrl
    ? subscribeNewHeads(wsUrl, logger, {
        backoffMs: config.INDEXER_RPC_BACKOFF_MS,
        backoffMaxMs: config.INDEXER_RPC_BACKOFF_MAX_MS,
        silenceMs: config.INDEXER_WS_SILENCE_MS,
        metrics: deps.metrics,
        chainId,
      })
    : pollOnly;
  const sizer = createRangeSizer({
    initial: config.INDEXER_INITIAL_BLOCK_RANGE,
    max: config.INDEXER_MAX_BLOCK_RANGE,
    targetLogs: config.INDEXER_TARGET_LOGS_PER_RANGE,
  });
  // Every logs answer is held against its blocks' blooms before anything is written (sync/log-completeness.ts).
  const checker = createBloomChecker(EVENT_SELECTORS);
  const audit = createAudit({
    chainId,
    rpc,
    store: deps.store,
    checker,
    sizer,
    maxAddresses: config.INDEXER_MAX_ADDRESSES_PER_REQUEST,
    depth: config.INDEXER_AUDIT_DEPTH_BLOCKS,
    blocksPerMinute: config.INDEXER_AUDIT_BLOCKS_PER_MINUTE,
    intervalMs: config.INDEXER_AUDIT_INTERVAL_MS,
    logger,
    metrics: deps.metrics,
  });
  let lastHead = -1;
  const status = new StatusReporter(deps.statusStore, chainId, config.INDEXER_HEARTBEAT_MS, logger);
  const reorgWindow = reorgWindowFor(chainId, config);
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
      const { filled, crossings, fades } = await deps.store.commit({
        chainId,
        contractSet: ctx.sources.contractSet,
        expected: ctx.cursor,
        cursor: to,
        changes,
        window: { append: ev.blocks },
      });
      ctx.chain.append(ev.blocks);
      for (const p of ev.created) ctx.sources.pairs.add(p);
      advanced(ctx, to);
      logsIndexed?.inc({ ...labels, mode: 'realtime' }, ev.logs.length);
      await deps.publisher.settled(chainId, filled);
      await deps.publisher.explore(chainId, changes);
      await deps.publisher.loans(chainId, changes, crossings);
      await deps.publisher.fades(chainId, fades);
    } else if (ev.type === 'reorg') {
      await rollBack(ctx, ev.ancestor, { kind: 'reorg', depth: ev.depth, orphanedTip: ctx.cursor.block_number });
      reorgs?.inc(labels);
      logger.warn({ ancestor: ev.ancestor?.number ?? -1, depth: ev.depth, orphaned_in_window: ev.orphaned.length }, 'reorg rolled back');
    } else {
      await deps.store.finalize(chainId, ev.block.number, ctx.cursor.block_number - config.INDEXER_REORG_MAX_DEPTH);
      ctx.chain.finalizeTo(ev.block.number);
    }
  }

  /**
   * Undoes everything above `ancestor` (a reorg's common ancestor, or the block before an
   * operator's resync point; null: everything), then tells clients what changed. The window is
   * rewound when the ancestor is in it, and otherwise restarts at the ancestor.
   */
  async function rollBack(ctx: TailerContext, ancestor: LightBlock | null, cause: RollbackCause): Promise<{ reopened: number }> {
    const effects = await deps.store.rollback({ chainId, contractSet: ctx.sources.contractSet, expected: ctx.cursor, ancestor, cause });
    if (ancestor && ctx.chain.get(ancestor.number)?.hash === ancestor.hash) ctx.chain.rewindTo(ancestor);
    else if (ancestor) ctx.chain.resetTo(ancestor);
    else ctx.chain.clear();
    // Pairs created in orphaned blocks are gone from the table; watch exactly what remains.
    const kept = await deps.store.load(chainId, ctx.sources.contractSet);
    ctx.sources.pairs.clear();
    for (const p of kept.pairs) ctx.sources.pairs.add(p);
    if (ancestor) advanced(ctx, ancestor);
    else {
      ctx.cursor = { block_number: -1, block_hash: null, block_timestamp: null };
      status.update({ cursor: -1, cursor_timestamp: null });
    }
    const point: RollbackPoint = {
      number: ancestor?.number ?? -1,
      hash: ancestor?.hash ?? null,
      key: cause.kind === 'reorg' ? (ancestor?.hash ?? 'genesis') : `resync-${cause.requestIds[0]}`,
    };
    await tell(effects, point);
    return { reopened: effects.reopened.length };
  }

  /** Tells clients what a rollback (or a start over) undid: reopened quotes, Explore pairs, loans. */
  async function tell(effects: RollbackEffects, point: RollbackPoint): Promise<void> {
    await deps.publisher.reopened(chainId, effects.reopened, point);
    await deps.publisher.exploreReorg(chainId, effects.pairs, point);
    if (effects.loans) await deps.publisher.loansReorg(chainId, point);
  }

  /** Serves pending resync requests; true when it rolled the network back. */
  async function resync(ctx: TailerContext): Promise<boolean> {
    const plan = await planResync(deps.store, rpc, chainId, ctx.cursor.block_number);
    if (!plan) return false;
    if (plan.kind === 'nothing') {
      const outcome = `nothing to roll back: indexed up to block ${ctx.cursor.block_number}, below ${plan.fromBlock}`;
      await deps.store.closeResync(plan.requestIds, ctx.cursor.block_number, outcome);
      logger.info({ requests: plan.requestIds, from_block: plan.fromBlock }, outcome);
      return false;
    }
    const to = plan.ancestor?.number ?? -1;
    const outcome = `rolled back to block ${to}; re-syncing from block ${to + 1}`;
    const { reopened } = await rollBack(ctx, plan.ancestor, { kind: 'resync', requestIds: plan.requestIds, outcome });
    logger.warn({ requests: plan.requestIds, from_block: plan.fromBlock, reopened_quotes: reopened }, 'operator resync: rolled back');
    return true;
  }

  /**
   * Backfills up to `to` in `eth_getLogs` ranges. Ranges within reorg reach (from `denseFrom`
   * on) bring every header, so the window fills as it would block by block; older ones leave
   * one window block and their headers as checkpoints.
   */
  async function backfill(ctx: TailerContext, to: number, denseFrom: number): Promise<void> {
    status.update({ state: 'backfill' });
    const batches = historicalSync(
      {
        rpc,
        sources: ctx.sources,
        sizer,
        prefetch: config.INDEXER_PREFETCH_RANGES,
        signal: abort.signal,
        maxAddresses: config.INDEXER_MAX_ADDRESSES_PER_REQUEST,
        logger,
        after: ctx.chain.tip,
        denseFrom,
        checker,
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
      const trimBelow = batch.to - reorgWindow + 1;
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
      advanced(ctx, batch.toBlock);
      logsIndexed?.inc({ ...labels, mode: 'backfill' }, batch.logs.length);
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

  /** One pass; true when there is more to do at once (no wait before the next pass). */
  async function step(ctx: TailerContext): Promise<boolean> {
    if (await resync(ctx)) return true;
    const head = await rpc.latestBlock();
    lastHead = Math.max(lastHead, head.number);
    heads.observedHead(head.number);
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
      if (reorged) return true;
      try {
        await backfill(ctx, finalized, head.number - reorgWindow + 1);
      } catch (err) {
        if (!(err instanceof BackfillReorgedError)) throw err;
        // The next pass finds the replaced tip (checkTip) and rolls back to where the forks meet.
        logger.warn({ err: err.message }, 'chain reorganised under the backfill');
      }
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

  /** Records a failure in the status: a fixed code for the API, the text for the logs and operators. */
  function failed(err: unknown, patch: Partial<StatusRow> = {}): string {
    const text = errorText(err);
    status.update({ last_error: text, error_code: errorCode(err), provider: rpc.providerState(), ...patch }, { now: true });
    return text;
  }

  /** The context of the running loop (null while it reloads after a failure, or halted). */
  let live: TailerContext | null = null;

  /**
   * The standing audit, beside the tail loop rather than in it: a slice under a slow provider
   * must not delay the head. It reads final blocks only (out of reach of both the confirmations
   * and the window: a block that may still be reorganised is realtime sync's business), writes
   * nothing but a resync request, and skips while the loop has no context.
   */
  async function auditLoop(): Promise<void> {
    while (!abort.signal.aborted) {
      await sleep(config.INDEXER_AUDIT_INTERVAL_MS, abort.signal);
      const ctx = live;
      if (!ctx || abort.signal.aborted) continue;
      try {
        await audit.tick(ctx.sources, Math.min(ctx.cursor.block_number - reorgWindow, lastHead - network.confirmations), ctx.startBlock ?? 0, {
          number: ctx.cursor.block_number,
          hash: ctx.cursor.block_hash,
        });
      } catch (err) {
        if (!abort.signal.aborted) logger.warn({ err: errorText(err) }, 'indexer audit slice failed; trying it again at the next interval');
      }
    }
  }

  async function run(): Promise<void> {
    status.start();
    let ctx: TailerContext | null = null;
    let failures = 0;
    let halted = false;
    while (!abort.signal.aborted) {
      try {
        if (halted) {
          // Halted: nothing is written until an operator asks for a resync, which may cure it.
          await sleep(config.INDEXER_POLL_INTERVAL_MS, abort.signal);
          if (abort.signal.aborted || (await deps.store.pendingResyncs(chainId)).length === 0) continue;
          halted = false;
          status.update({ state: 'starting', error_code: null, action: null, last_error: null }, { now: true });
          logger.warn('resync requested: resuming the halted network');
        }
        if (!ctx) {
          ctx = await loadContext({ config, logger, store: deps.store, rpc, sizer, checker }, network);
          // The network was started over (a new chain under it): told as a rollback to before genesis.
          if (ctx.undone) {
            const { undone } = ctx;
            ctx.undone = null;
            status.update({ cursor: ctx.cursor.block_number, cursor_timestamp: null });
            await tell(undone.effects, { number: -1, hash: null, key: undone.key });
          }
        }
        live = ctx;
        const more = await step(ctx);
        failures = 0;
        status.update({
          rpc_ok: true,
          last_error: null,
          error_code: null,
          last_synced_at: new Date(),
          provider: rpc.providerState(),
          audit: { ...audit.state },
        });
        if (!more) await heads.wait(config.INDEXER_POLL_INTERVAL_MS, abort.signal);
      } catch (err) {
        if (abort.signal.aborted) break;
        // The database is the truth: after any failure the next pass reloads cursor, window and pairs.
        ctx = null;
        live = null;
        // Not a failure: the node serves a new chain, and reloading starts the network over on it.
        if (err instanceof ChainReplacedError) continue;
        // The error's base class is the whole policy: fatal halts, anything else is retried.
        if (err instanceof FatalIndexerError) {
          const action = err.action;
          const text = failed(err, { state: 'stopped', action, rpc_ok: rpc.health().ok });
          logger.fatal({ err: text, kind: (err as Error).name, action }, 'indexer halted for this network');
          halted = true;
          continue;
        }
        failures++;
        const text = failed(err, { rpc_ok: err instanceof RpcFailureError ? false : status.current.rpc_ok });
        logger.warn({ err: text, kind: (err as Error).name, failures }, 'indexer step failed; retrying');
        await sleep(
          backoffDelay(failures - 1, Math.max(config.INDEXER_RPC_BACKOFF_MS, 50), Math.max(config.INDEXER_RPC_BACKOFF_MAX_MS, config.INDEXER_POLL_INTERVAL_MS)),
          abort.signal,
        );
      }
    }
    await status.stop();
  }

  const done = run();
  const audited = config.INDEXER_AUDIT_BLOCKS_PER_MINUTE > 0 ? auditLoop() : Promise.resolve();
  return {
    chainId,
    done,
    async stop() {
      abort.abort();
      heads.close();
      rpc.close();
      await done;
      await audited;
      await status.stop();
    },
  };
}
