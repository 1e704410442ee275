import type { DataSource } from 'typeorm';
import type { Config } from '../shared/platform/config';
import type { Lifecycle } from '../shared/platform/lifecycle';
import type { Logger } from '../shared/platform/logging';
import type { Metrics } from '../shared/platform/metrics';
import type { Redis } from '../shared/platform/redis';
import { NetworksService } from '../shared/networks';
import { createLivePublisher, type LivePublisher } from './publish/live-publisher';
import { IndexerStore } from './store/indexer-store';
import { StatusStore } from './store/status-store';
import { startNetworkTailer, type NetworkTailer } from './sync/network-tailer';
import type { NetworkSpec } from './sync/tailer-context';

export interface IndexerDeps {
  config: Config;
  logger: Logger;
  db: DataSource;
  redis: Redis;
  metrics?: Metrics;
  /** Tests may pass their own; by default events go to the socket tier through shared/events. */
  publisher?: LivePublisher;
}

export interface Indexer {
  /** Chain ids with a running (or halted, waiting for a resync) tailer. */
  networks(): number[];
  /** Rereads the registry now: starts new networks, restarts changed ones, stops removed ones. */
  refresh(): Promise<void>;
  stop(): Promise<void>;
}

/** What, if it changes in the registry, needs the network's tailer restarted. */
const fingerprint = (n: NetworkSpec) => JSON.stringify([n.rpc_urls, n.contracts, n.confirmations]);

/**
 * The indexer role: one tailer per enabled registry network, kept in step with the registry.
 * Tailers are independent; one network failing (even fatally) leaves the others running.
 */
export async function startIndexer(deps: IndexerDeps, lifecycle: Lifecycle): Promise<Indexer> {
  const logger = deps.logger.child({ role: 'indexer' });
  const registry = new NetworksService(deps.db);
  const tailerDeps = {
    config: deps.config,
    logger,
    metrics: deps.metrics,
    store: new IndexerStore(deps.db, { fadeWindowSeconds: deps.config.DUTCH_FADE_WINDOW }),
    statusStore: new StatusStore(deps.db),
    publisher: deps.publisher ?? createLivePublisher({ db: deps.db, redis: deps.redis, config: deps.config, metrics: deps.metrics, logger }),
  };
  const running = new Map<number, { tailer: NetworkTailer; fingerprint: string }>();
  let stopped = false;
  let refreshing: Promise<void> = Promise.resolve();

  async function reconcile(): Promise<void> {
    const wanted = (await registry.allNetworks()).filter((n) => n.enabled);
    const ids = new Set(wanted.map((n) => n.chain_id));
    for (const [id, r] of running) {
      if (!ids.has(id)) {
        logger.info({ chain_id: id }, 'network left the registry: stopping its tailer');
        running.delete(id);
        await r.tailer.stop();
      }
    }
    for (const n of wanted) {
      if (stopped) return;
      const spec: NetworkSpec = { chain_id: n.chain_id, name: n.name, rpc_urls: n.rpc_urls, contracts: n.contracts, confirmations: n.confirmations };
      const current = running.get(n.chain_id);
      if (current && current.fingerprint === fingerprint(spec)) continue;
      if (current) {
        logger.info({ chain_id: n.chain_id }, 'network changed in the registry: restarting its tailer');
        await current.tailer.stop();
      }
      try {
        running.set(n.chain_id, { tailer: startNetworkTailer(tailerDeps, spec), fingerprint: fingerprint(spec) });
      } catch (err) {
        // A network that cannot be followed at all (say, no http(s) RPC URL) says so in its status.
        const message = (err as Error).message;
        logger.error({ chain_id: n.chain_id, err: message }, 'cannot start a tailer for this network');
        await tailerDeps.statusStore
          .write({
            chain_id: n.chain_id,
            state: 'stopped',
            head: null,
            head_timestamp: null,
            cursor: null,
            cursor_timestamp: null,
            rpc_ok: false,
            last_error: message,
            error_code: 'rpc_unavailable',
            action: null,
            last_synced_at: null,
          })
          .catch(() => undefined);
      }
    }
  }

  const refresh = () => {
    refreshing = refreshing.then(reconcile).catch((err: unknown) => logger.warn({ err: (err as Error).message }, 'registry refresh failed'));
    return refreshing;
  };

  await refresh();
  const timer = setInterval(() => void refresh(), deps.config.INDEXER_NETWORKS_REFRESH_MS);
  timer.unref();
  logger.info({ networks: [...running.keys()] }, 'indexer started');

  const stop = async () => {
    if (stopped) return;
    stopped = true;
    clearInterval(timer);
    await refreshing;
    await Promise.all([...running.values()].map((r) => r.tailer.stop()));
    running.clear();
  };
  lifecycle.onClose('indexer', stop);
  return { networks: () => [...running.keys()], refresh, stop };
}
