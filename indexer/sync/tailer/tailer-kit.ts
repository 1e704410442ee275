import type { Counter, Gauge } from 'prom-client';
import type { Config } from '../../../shared/platform/config';
import type { Logger } from '../../../shared/platform/logging';
import type { Metrics } from '../../../shared/platform/metrics';
import { EVENT_SELECTORS } from '../../chain-events/decode-log';
import type { LivePublisher } from '../../publish/live-publisher';
import { createRangeSizer, type RangeSizer } from '../../rpc/log-range';
import { pollOnly, subscribeNewHeads, wsUrls, type HeadSignal } from '../../rpc/new-heads';
import { createRpc, type LightBlock, type Rpc } from '../../rpc/rpc';
import { StatusReporter } from '../../status/status-reporter';
import type { IndexerStore } from '../../store/indexer-store';
import type { StatusStore } from '../../store/status-store';
import { createAudit, type Audit } from '../audit';
import { createBloomChecker, type BloomChecker } from '../log-completeness';
import { reorgWindowFor } from '../reorg-window';
import type { NetworkSpec, TailerContext } from '../tailer-context';

export interface TailerDeps {
  config: Config;
  logger: Logger;
  metrics?: Metrics;
  store: IndexerStore;
  statusStore: StatusStore;
  publisher: LivePublisher;
}

/**
 * One network's tailer as its steps share it: what it was given, what it builds once at its
 * start (the RPC client, the newHeads wake-up, the range sizer, the bloom checker, the audit, the
 * heartbeat, the metrics) and the little the loop and the audit beside it both read.
 */
export interface TailerKit {
  deps: TailerDeps;
  config: Config;
  network: NetworkSpec;
  chainId: number;
  logger: Logger;
  /** Aborted by `stop`: every wait and loop of the tailer ends on it. */
  abort: AbortController;
  rpc: Rpc;
  heads: HeadSignal;
  sizer: RangeSizer;
  checker: BloomChecker;
  audit: Audit;
  status: StatusReporter;
  /** How many recent block hashes are kept linked for reorgs (sync/reorg-window.ts). */
  reorgWindow: number;
  metrics: {
    labels: { chain_id: string };
    reorgs?: Counter<string>;
    logsIndexed?: Counter<string>;
    cursorGauge?: Gauge<string>;
    headGauge?: Gauge<string>;
  };
  /** The highest head the RPC reported (-1 before the first): the audit stays below it. */
  lastHead: number;
  /** The context of the running loop (null while it reloads after a failure, or halted): what the audit reads. */
  live: TailerContext | null;
  /**
   * Counts each rollback's start and its end (reorgs and resyncs; odd while one runs): the audit,
   * which runs beside the loop, discards a slice that began during a rollback or overlapped one.
   * Between a rollback's delete and its cursor's move, the cursor still names blocks whose logs
   * are gone: a slice read then found them missing and asked for another resync.
   */
  rollbacks: number;
}

/** Builds what one network's tailer uses for its whole life, in the order it always has. */
export function createTailerKit(deps: TailerDeps, network: NetworkSpec): TailerKit {
  const { config } = deps;
  const chainId = network.chain_id;
  const logger = deps.logger.child({ chain_id: chainId });
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
  const status = new StatusReporter(deps.statusStore, chainId, config.INDEXER_HEARTBEAT_MS, logger);
  const reorgWindow = reorgWindowFor(chainId, config);
  const m = deps.metrics;
  return {
    deps,
    config,
    network,
    chainId,
    logger,
    abort: new AbortController(),
    rpc,
    heads,
    sizer,
    checker,
    audit,
    status,
    reorgWindow,
    metrics: {
      labels: { chain_id: String(chainId) },
      reorgs: m?.counter('indexer_reorgs_total', 'Reorgs rolled back', ['chain_id']),
      logsIndexed: m?.counter('indexer_logs_total', 'Logs written', ['chain_id', 'mode']),
      cursorGauge: m?.gauge('indexer_cursor_block', 'Last block fully indexed', ['chain_id']),
      headGauge: m?.gauge('indexer_head_block', 'Head block reported by the RPC', ['chain_id']),
    },
    lastHead: -1,
    live: null,
    rollbacks: 0,
  };
}

/** The cursor moved to `to`: in the context, the heartbeat and the gauge. */
export function advanceCursor(kit: TailerKit, ctx: TailerContext, to: LightBlock): void {
  ctx.cursor = { block_number: to.number, block_hash: to.hash, block_timestamp: to.timestamp };
  kit.status.update({ cursor: to.number, cursor_timestamp: to.timestamp });
  kit.metrics.cursorGauge?.set(kit.metrics.labels, to.number);
}
