import type { PubsubRegistrations, RevokedAmong } from '../shared/events';
import { exclusiveFillExpireJob, OrderRepository } from '../shared/orders';
import type { RedisEpoch, RedisLoss } from '../shared/platform/redis';
import { QuoteRepository, quoteExpireJob } from '../shared/quotes';
import type { JobSpec } from '../shared/platform/queue';
import type { Redone } from './recovery-sweep';
import type { WorkerContext } from './worker-context';

/** One periodic job: the queue it runs on, its scheduler id (its job id), its job's name and how often it runs. */
export interface Schedule {
  queue: string;
  id: string;
  name: string;
  everyMs: number;
}

/** Expiry jobs re-enqueued per kind after a loss, at most: more than any backlog the sweepers could not finish. */
const REQUEUE_LIMIT = 50_000;
const REQUEUE_BATCH = 500;

/**
 * Keeps what Redis must hold for the workers, whatever Redis loses.
 *
 * - The schedules (the quote and order sweepers, the order records sweeper, quote retention) are BullMQ job schedulers: Redis
 *   keys. Upserted only at start, a FLUSHALL (or a restart without persistence, or an eviction)
 *   took them for good, and with them the backstop that redoes lost work: that is why quotes
 *   created after a flush were never expired. Every REDIS_EPOCH_CHECK_MS each workers process
 *   looks for its schedulers and installs any that is missing (every replica upserts the same
 *   ids; BullMQ keeps one of each).
 * - On a Redis data loss (the epoch changed: shared/platform/redis/redis-epoch.ts) it rebuilds
 *   the derived state from Postgres at once, in this order: the queue consumers (renewed: their
 *   view of the queues went with the data); the schedules; the makers' pubsub
 *   registrations (the premium maker's rfq_maker announcements read them); the delayed expiry
 *   jobs of open quotes and active exclusive fills, each at its own time (orders have none: they
 *   read expired at their time and the records sweeper writes it down); then the recovery sweep
 *   without grace (announce what was never announced, expire what is past its window, publish
 *   missing results, the Dutch phases). It logs ONE line saying what it redid.
 */
export class RedisLossKeeper {
  private timer: NodeJS.Timeout | undefined;
  private checking: Promise<string[]> | null = null;
  private closed = false;

  constructor(
    private readonly ctx: WorkerContext,
    private readonly deps: {
      schedules: readonly Schedule[];
      registrations: PubsubRegistrations;
      revokedAmong: RevokedAmong;
      sweep: (ctx: WorkerContext) => Promise<Redone>;
      /** Replaces this process's queue consumers (WorkerHost.renewConsumers); answers the queues. */
      renewConsumers?: () => Promise<string[]>;
    },
  ) {}

  /** Watches `epoch` for losses and checks the schedules every `everyMs`. */
  start(epoch: RedisEpoch | undefined, everyMs: number): this {
    epoch?.onLoss((loss) => this.rebuild(loss));
    // A Redis found empty at this process's start: the epoch reported it before this keeper listened.
    if (epoch?.startLoss) void this.rebuild(epoch.startLoss);
    this.timer = setInterval(() => {
      this.ensureSchedules().catch((err: unknown) => this.ctx.logger.debug({ err: (err as Error).message }, 'schedule check failed; trying again'));
    }, everyMs);
    this.timer.unref();
    return this;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    await this.checking?.catch(() => undefined);
  }

  /** Installs every schedule that is missing; answers the ids it installed. */
  ensureSchedules(): Promise<string[]> {
    if (this.closed) return Promise.resolve([]);
    this.checking ??= this.installMissing().finally(() => {
      this.checking = null;
    });
    return this.checking;
  }

  private async installMissing(): Promise<string[]> {
    const installed: string[] = [];
    for (const s of this.deps.schedules) {
      const q = this.ctx.queue.queue(s.queue);
      if (await q.getJobScheduler(s.id)) continue;
      await q.upsertJobScheduler(s.id, { every: s.everyMs }, { name: s.name, data: {} });
      installed.push(s.id);
    }
    if (installed.length > 0) {
      this.ctx.metrics
        .counter('rfq_job_schedulers_reinstalled_total', 'Job schedulers found missing in Redis and installed again', ['scheduler'])
        .inc(installed.length);
      this.ctx.logger.warn({ schedulers: installed }, `job schedulers missing in Redis, installed again: ${installed.join(', ')}`);
    }
    return installed;
  }

  /** The rebuild after a loss; its one line names the loss and what was redone. */
  async rebuild(loss: RedisLoss): Promise<void> {
    const started = Date.now();
    const redone: Redone = {};
    const failed: string[] = [];
    const step = async (name: string, fn: () => Promise<number | Redone>) => {
      try {
        const n = await fn();
        if (typeof n === 'number') redone[name] = n;
        else Object.assign(redone, n);
      } catch (err) {
        failed.push(`${name}: ${(err as Error).message}`);
      }
    };
    // Consumers first: what the rest enqueues must find one that is fetching.
    const renew = this.deps.renewConsumers;
    if (renew) await step('consumers', async () => (await renew()).length);
    await step('schedulers', async () => (await this.installMissing()).length);
    await step('registrations', () => this.deps.registrations.restore(this.deps.revokedAmong));
    await step('requeued_expiries', () => this.requeueExpiries());
    await step('sweep', () => this.deps.sweep(this.ctx));
    const items = Object.entries(redone).map(([k, n]) => `${k}=${n}`);
    this.ctx.logger.error(
      {
        reason: loss.reason,
        previous_epoch: loss.previousEpoch,
        epoch: loss.epoch,
        restarted: loss.restarted,
        evicted_keys: loss.evictedKeys,
        ...(loss.shard ? { shard: loss.shard } : {}),
        redone,
        failed,
        rebuild_ms: Date.now() - started,
        detected_ms: started - loss.detectedAt,
      },
      `redis data loss (${loss.reason}): rebuilt from Postgres, redid ${items.join(' ') || 'nothing'}${failed.length > 0 ? `; failed ${failed.join('; ')}` : ''}`,
    );
  }

  /** Delayed expiry jobs for open quotes and active fills, each at its own time (fixed job ids: none twice). */
  private async requeueExpiries(): Promise<number> {
    const [quotes, fills] = await Promise.all([
      new QuoteRepository(this.ctx.db).openExpiries(REQUEUE_LIMIT),
      new OrderRepository(this.ctx.db).activeFillExpiries(REQUEUE_LIMIT),
    ]);
    const now = Date.now();
    const jobs = (spec: JobSpec, key: string, rows: { id: string; at: number }[]) =>
      rows.map((r) => ({ spec, payload: { [key]: r.id }, opts: { delay: Math.max(0, r.at - now) } }));
    const all = [...jobs(quoteExpireJob, 'quote_id', quotes), ...jobs(exclusiveFillExpireJob, 'exclusive_fill_id', fills)];
    // enqueueMany takes one queue at a time.
    const byQueue = new Map<string, typeof all>();
    for (const j of all) {
      const list = byQueue.get(j.spec.queue);
      if (list) list.push(j);
      else byQueue.set(j.spec.queue, [j]);
    }
    for (const list of byQueue.values()) {
      for (let i = 0; i < list.length; i += REQUEUE_BATCH) await this.ctx.queue.enqueueMany(list.slice(i, i + REQUEUE_BATCH));
    }
    return all.length;
  }
}
