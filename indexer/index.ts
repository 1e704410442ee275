import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { DataSource } from 'typeorm';
import type { Config } from '../shared/platform/config';
import type { Lifecycle } from '../shared/platform/lifecycle';
import type { Logger } from '../shared/platform/logging';
import type { Metrics } from '../shared/platform/metrics';
import type { JobQueue } from '../shared/platform/queue';
import type { Redis } from '../shared/platform/redis';
import { roleTracer, type Tracing } from '../shared/platform/tracing';
import { NetworksService } from '../shared/networks';
import { createLivePublisher, type LivePublisher } from './publish/live-publisher';
import { IndexerStore } from './store/indexer-store';
import { LeaseStore, type Fence } from './store/lease-store';
import { StatusStore } from './store/status-store';
import { startNetworkTailer, type NetworkTailer } from './sync/tailer/network-tailer';
import type { NetworkSpec } from './sync/tailer-context';

export { indexerStartChecks } from './rpc/start-check';

export interface IndexerDeps {
  config: Config;
  logger: Logger;
  db: DataSource;
  redis: Redis;
  metrics?: Metrics;
  /** Tests may pass their own; by default events go to the socket tier through shared/events. */
  publisher?: LivePublisher;
  /** Where the live publisher asks the workers to fan Explore events out. */
  queue: JobQueue;
  /** When the process traces: each batch commit and each live publish is a span of the indexer's. */
  tracing?: Tracing;
}

export interface Indexer {
  /** Chain ids this process holds the lease of, each with a running (or halted, waiting for a resync) tailer. */
  networks(): number[];
  /** This process's lease holder id (host, pid and a random part). */
  readonly holder: string;
  /** Rereads the networks now: starts new networks, restarts changed ones, stops removed ones. */
  refresh(): Promise<void>;
  stop(): Promise<void>;
}

/** What, if it changes in a network's row (`networks`), needs the network's tailer restarted. */
const fingerprint = (n: NetworkSpec) => JSON.stringify([n.rpc_urls, n.contracts, n.confirmations]);

/**
 * The indexer role: one tailer per enabled network (`networks`) this process holds the lease of,
 * kept in step with the networks table. Several processes may run: each network is written by the
 * holder of its lease (`indexer_leases`), which renews it every INDEXER_LEASE_RENEW_MS; the
 * others are standbys that try every INDEXER_LEASE_RENEW_MS to take free or expired leases, so a
 * network whose holder died is taken over within INDEXER_LEASE_TTL_MS + INDEXER_LEASE_RENEW_MS
 * of its last renewal, from the committed cursor. Every write checks the lease in its own
 * transaction (the fencing token), so a holder that lost it commits nothing more.
 * Tailers are independent; one network failing (even fatally) leaves the others running.
 */
export async function startIndexer(deps: IndexerDeps, lifecycle: Lifecycle): Promise<Indexer> {
  const holder = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  const logger = deps.logger.child({ role: 'indexer', holder });
  const networks = new NetworksService(deps.db);
  const leases = new LeaseStore(deps.db, deps.config.INDEXER_LEASE_TTL_MS);
  const tracer = roleTracer(deps.tracing, 'indexer');
  const store = new IndexerStore(deps.db, { fadeWindowSeconds: deps.config.DUTCH_FADE_WINDOW, tracer });
  const statusStore = new StatusStore(deps.db);
  const tailerDeps = {
    config: deps.config,
    logger,
    metrics: deps.metrics,
    publisher:
      deps.publisher ?? createLivePublisher({ db: deps.db, redis: deps.redis, config: deps.config, metrics: deps.metrics, logger, queue: deps.queue, tracer }),
  };
  /** Enabled networks of the last read of `networks`. */
  let wanted = new Map<number, NetworkSpec>();
  const running = new Map<number, { tailer: NetworkTailer; fingerprint: string; fence: Fence }>();
  let stopped = false;
  // Network reads and lease rounds run one at a time, in order.
  let queue: Promise<void> = Promise.resolve();
  const serial = (what: string, fn: () => Promise<void>) => {
    queue = queue.then(fn).catch((err: unknown) => logger.warn({ err: (err as Error).message }, `${what} failed`));
    return queue;
  };

  async function stopNetwork(chainId: number, release: boolean): Promise<void> {
    const r = running.get(chainId);
    if (!r) return;
    running.delete(chainId);
    await r.tailer.stop();
    if (release)
      await leases.release(r.fence).catch((err: unknown) => logger.warn({ chain_id: chainId, err: (err as Error).message }, 'could not release the lease'));
  }

  /** Takes the network's lease if it is free, and starts its tailer under it. */
  async function claim(spec: NetworkSpec): Promise<void> {
    const fence = await leases.acquire(spec.chain_id, holder);
    if (!fence || stopped) return;
    const fencedStatus = statusStore.fenced(fence);
    try {
      const tailer = startNetworkTailer({ ...tailerDeps, store: store.fenced(fence), statusStore: fencedStatus }, spec);
      running.set(spec.chain_id, { tailer, fingerprint: fingerprint(spec), fence });
      logger.info({ chain_id: spec.chain_id, lease_token: fence.token }, 'holding the network lease: tailer started');
    } catch (err) {
      // A network that cannot be followed at all (say, no http(s) RPC URL) says so in its status.
      const message = (err as Error).message;
      logger.error({ chain_id: spec.chain_id, err: message }, 'cannot start a tailer for this network');
      await fencedStatus
        .write({
          chain_id: spec.chain_id,
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
          provider: null,
          audit: null,
        })
        .catch(() => undefined);
      await leases.release(fence).catch(() => undefined);
    }
  }

  /** Renews the leases held (stopping the tailers of lost ones), then tries to take the free ones. */
  async function leaseRound(): Promise<void> {
    for (const [chainId, r] of [...running]) {
      let held: boolean;
      try {
        held = await leases.renew(r.fence);
      } catch (err) {
        // The database is away: the lease may run out meanwhile, and then every write is refused.
        logger.warn({ chain_id: chainId, err: (err as Error).message }, 'could not renew the network lease');
        continue;
      }
      if (!held) {
        logger.warn({ chain_id: chainId, lease_token: r.fence.token }, 'network lease lost: stopping its tailer');
        await stopNetwork(chainId, false);
      }
    }
    for (const spec of wanted.values()) {
      if (stopped) return;
      if (!running.has(spec.chain_id)) await claim(spec);
    }
  }

  async function reconcile(): Promise<void> {
    const nets = (await networks.allNetworks()).filter((n) => n.enabled);
    wanted = new Map(
      nets.map((n) => [n.chain_id, { chain_id: n.chain_id, name: n.name, rpc_urls: n.rpc_urls, contracts: n.contracts, confirmations: n.confirmations }]),
    );
    for (const [id, r] of [...running]) {
      const spec = wanted.get(id);
      if (!spec) {
        logger.info({ chain_id: id }, 'network removed or disabled: stopping its tailer');
        await stopNetwork(id, true);
      } else if (r.fingerprint !== fingerprint(spec)) {
        logger.info({ chain_id: id }, 'network changed (RPC URLs, contracts or confirmations): restarting its tailer');
        await stopNetwork(id, true);
      }
    }
    await leaseRound();
  }

  const refresh = () => serial('networks refresh', reconcile);

  await refresh();
  const timer = setInterval(() => void refresh(), deps.config.INDEXER_NETWORKS_REFRESH_MS);
  timer.unref();
  const leaseTimer = setInterval(() => void serial('lease round', leaseRound), deps.config.INDEXER_LEASE_RENEW_MS);
  leaseTimer.unref();
  logger.info({ networks: [...running.keys()], standby_for: [...wanted.keys()].filter((id) => !running.has(id)) }, 'indexer started');

  const stop = async () => {
    if (stopped) return;
    stopped = true;
    clearInterval(timer);
    clearInterval(leaseTimer);
    await queue;
    // Leases are released so that a standby takes the networks at its next round, not after the TTL.
    await Promise.all([...running.keys()].map((id) => stopNetwork(id, true)));
    // Explore appends run behind the tail loops: let the ones handed over finish.
    await tailerDeps.publisher.idle?.();
  };
  lifecycle.onClose('indexer', stop);
  return { networks: () => [...running.keys()], holder, refresh, stop };
}
