import type { EventEmitter } from 'node:events';
import type { DataSource } from 'typeorm';
import type { Redis } from '../shared/platform/redis';
import type { WorkerContext } from './worker-context';
import { sweepQuotes } from './quotes/quote-sweeper';
import { sweepOrders } from './orders/order-sweeper';

export type Dependency = 'redis' | 'postgres';

/** What one recovery sweep redid, per step (`announce`, `expire`, `expire_order`, ...). */
export type Redone = Record<string, number>;

/**
 * A failed recovery sweep (the dependency flapped again, the other one is down, or a Redis
 * Cluster is still failing over) is retried this often, for this long: a failover takes the
 * cluster's node timeout plus an election, seconds that a handful of quick attempts would miss.
 */
const RETRY_DELAY_MS = 500;
const RETRY_BUDGET_MS = 30_000;

/**
 * Redoes lost work the moment a dependency comes back, instead of at the sweepers' next tick.
 *
 * While Redis or Postgres is down, announce, expiry and publish jobs fail or stall; the
 * scheduled sweepers redo them, but only on their interval (QUOTE_SWEEP_INTERVAL_MS,
 * ORDER_SWEEP_INTERVAL_MS), which can outlast a quote's whole window. This watches the
 * process's own connections and runs the quote sweep (quotes, offers, Dutch phases, results)
 * and the orders sweep (orders, exclusive fills) at once when one comes back:
 *
 * - Redis: an ioredis client that emitted `close` and then `ready` again reconnected.
 * - Postgres: a pooled session that failed (`error`: terminated, connection lost) followed by a
 *   new session the pool opened successfully (`connect`).
 *
 * Deduplicated in process: recoveries seen while a sweep runs are folded into one more sweep
 * after it, so several clients reconnecting together cost one or two sweeps, not one each.
 * Across replicas, every replica sweeps once; every step is idempotent (guarded statements,
 * publishes under idempotency keys), so replicas racing for the same item do it once.
 */
export class RecoverySweeper {
  private readonly down = new Set<Dependency>();
  private readonly requested = new Set<Dependency>();
  private running: Promise<void> | null = null;
  private closed = false;
  private readonly detach: (() => void)[] = [];

  constructor(
    private readonly ctx: WorkerContext,
    private readonly sweep: (ctx: WorkerContext) => Promise<Redone> = sweepAfterRecovery,
  ) {}

  /**
   * Watches an ioredis client: a `ready` after a `close` is a recovery of Redis. A cluster client
   * stays ready while one shard fails over, so there a node leaving or failing (`-node`,
   * `node error`) is the loss and the slot map refreshed after it (`refresh`) the recovery; a
   * sweep that runs before the new master serves is retried (RETRY_BUDGET_MS).
   */
  watchRedis(client: Redis): this {
    const lost = () => this.lost('redis');
    const ready = () => this.back('redis');
    const events: [string, () => void][] = [
      ['close', lost],
      ['ready', ready],
      ...(client.isCluster
        ? ([
            ['-node', lost],
            ['node error', lost],
            ['refresh', ready],
          ] as [string, () => void][])
        : []),
    ];
    for (const [event, fn] of events) client.on(event, fn);
    this.detach.push(() => {
      for (const [event, fn] of events) client.off(event, fn);
    });
    return this;
  }

  /** Watches the data source's pg pool: a session that failed, then a new one connected, is a recovery of Postgres. */
  watchPostgres(db: DataSource): this {
    const pool = (db.driver as unknown as { master?: EventEmitter }).master;
    if (!pool) throw new Error('the data source has no pg pool to watch (not initialized?)');
    const lost = () => this.lost('postgres');
    const connect = (client: EventEmitter) => {
      client.on('error', lost);
      this.back('postgres');
    };
    pool.on('connect', connect);
    pool.on('error', lost);
    this.detach.push(() => {
      pool.off('connect', connect);
      pool.off('error', lost);
    });
    return this;
  }

  /** Stops watching and waits for a sweep under way. */
  async close(): Promise<void> {
    this.closed = true;
    for (const d of this.detach.splice(0)) d();
    await this.running;
  }

  private lost(dep: Dependency): void {
    if (this.closed) return;
    this.down.add(dep);
  }

  private back(dep: Dependency): void {
    if (this.closed || !this.down.delete(dep)) return;
    this.requested.add(dep);
    this.running ??= this.drain().finally(() => {
      this.running = null;
    });
  }

  private async drain(): Promise<void> {
    while (this.requested.size > 0 && !this.closed) {
      const deps = [...this.requested].sort();
      this.requested.clear();
      await this.sweepFor(deps);
    }
  }

  private async sweepFor(deps: Dependency[]): Promise<void> {
    const what = deps.join(' and ');
    const started = Date.now();
    for (let attempt = 1; Date.now() - started <= RETRY_BUDGET_MS && !this.closed; attempt++) {
      try {
        const redone = await this.sweep(this.ctx);
        const items = Object.entries(redone).map(([step, n]) => `${step}=${n}`);
        this.ctx.logger.warn(
          { dependency: deps, redone, sweep_ms: Date.now() - started, attempt },
          `${what} reconnected: sweeping redid ${items.length > 0 ? items.join(' ') : 'nothing'}`,
        );
        return;
      } catch (err) {
        this.ctx.logger.warn({ dependency: deps, attempt, err: (err as Error).message }, `${what} reconnected: sweep failed, trying again`);
        await new Promise((r) => setTimeout(r, RETRY_DELAY_MS));
      }
    }
    if (!this.closed) this.ctx.logger.warn({ dependency: deps }, `${what} reconnected: sweep gave up; the scheduled sweepers redo the rest`);
  }
}

/**
 * The sweep run on reconnect: the quote sweep without its grace (what it would leave to the jobs
 * is what the outage lost), then the orders sweep. The Dutch clock looks again within 250 ms by
 * itself, and the quote sweep redoes Dutch phases too.
 */
export async function sweepAfterRecovery(ctx: WorkerContext): Promise<Redone> {
  const quotes = await sweepQuotes(ctx, { graceSeconds: 0, reason: 'recovery' });
  const orders = await sweepOrders(ctx, { reason: 'recovery' });
  return { ...quotes, ...orders };
}
