import type { DataSource } from 'typeorm';
import type { Logger } from '../logging';
import type { Metrics } from '../metrics';
import type { Cluster } from 'ioredis';
import { luaScript } from './lua-scripts';
import { hashTag, primaryNodes, RedisKeys, type Redis } from './redis';
import { ShardMarkers, type ShardFinding } from './shard-markers';
import { RedisEpochRepository } from './redis-epoch.repository';

/**
 * Seqs one epoch may hand out per topic before the next epoch's floor: 2^40. A topic's counter
 * recreated in epoch n starts above (n - 1) * 2^40, so it never repeats a seq a client already
 * holds from an earlier epoch; 8,192 epochs fit below 2^53 (a JavaScript number's exact range).
 */
export const EPOCH_SEQ_SPAN = 2 ** 40;
export const MAX_EPOCH = 2 ** 53 / EPOCH_SEQ_SPAN - 1;

/** The lowest seq a counter created in `epoch` may start after. */
export function epochFloor(epoch: number): number {
  return (Math.min(epoch, MAX_EPOCH) - 1) * EPOCH_SEQ_SPAN;
}

/** True when `seq` is the first seq a counter created in some epoch hands out (1, 2^40 + 1, ...). */
export function isEpochStart(seq: number): boolean {
  return seq >= 1 && (seq - 1) % EPOCH_SEQ_SPAN === 0;
}

/** Why a process decided Redis lost data. */
export type RedisLossReason =
  /** The epoch key is gone: a FLUSHALL/FLUSHDB, a restart without persistence, an eviction. */
  | 'epoch_missing'
  /** Another process found it gone first and opened the epoch this one now sees. */
  | 'epoch_replaced'
  /** The epoch key's heartbeat went backwards: a failover to a replica that had not received the last writes. */
  | 'writes_rolled_back'
  /** Found empty at this process's start while Postgres remembers an earlier epoch. */
  | 'empty_at_start'
  /**
   * The server evicted keys (its `evicted_keys` grew): only with REDIS_ALLOW_EVICTION, since a
   * start refuses an evicting Redis. Any key may be gone, a seq counter too, so it is a loss.
   */
  | 'keys_evicted'
  /** On a cluster: one master's marker is gone while the epoch key (on another master) is intact (shard-markers.ts). */
  | 'shard_flushed'
  /** On a cluster: a replica took over a master; it may lack the writes the master acknowledged last (shard-markers.ts). */
  | 'master_failed_over';

export interface RedisLoss {
  reason: RedisLossReason;
  previousEpoch: number | null;
  epoch: number;
  /** The server's run_id changed since the last check (a restart or a failover). */
  restarted: boolean;
  /** Keys the servers evicted since the last check (`keys_evicted`); 0 otherwise. */
  evictedKeys: number;
  /** On a cluster, the master that lost data when the epoch key did not: a slot it serves and its `host:port`. */
  shard?: { slot: number; node: string };
  detectedAt: number;
}

/** The epoch key's heartbeat: {epoch, beat}, {0, 0} when the key is missing (shared/platform/redis/lua/epoch-beat-1.lua). */
const BEAT = luaScript('epoch-beat');

/** Writes the epoch key only when it is missing (shared/platform/redis/lua/epoch-open-1.lua). */
const OPEN = luaScript('epoch-open');

/** Serializes the processes that open an epoch: one new epoch per loss, not one per process. */
const EPOCH_LOCK = "hashtext('rfq:redis-epoch')";

const byClient = new WeakMap<Redis, RedisEpoch>();

/**
 * Notices that Redis lost its data, within one check interval.
 *
 * Redis holds work in flight (queued jobs, schedules, seq counters, registrations); Postgres
 * holds the truth. A Redis that comes back empty (FLUSHALL, a restart without persistence, a
 * failover that dropped writes, an evicted key) looks healthy to every client: commands succeed.
 * So each process writes an epoch key at start when it is missing (the epoch number comes from
 * Postgres, `redis_epochs`, one row per life of the Redis data) and checks it on a timer, with
 * the server's `run_id`: a missing or replaced key, or a heartbeat gone backwards, is a loss.
 * On a loss a new epoch is opened (serialized across processes by a Postgres advisory lock),
 * `rfq_redis_data_loss_total{reason}` counts it, and the `onLoss` handlers rebuild what Postgres
 * can rebuild (the workers: schedules, registrations, queued work; workers/recovery-sweep.ts).
 *
 * The epoch's floor keeps seqs from going backwards: the event publisher starts a topic counter
 * it finds below the floor just above it (shared/platform/event-bus/topic-event-publisher.ts).
 */
export class RedisEpoch {
  readonly key: string;
  private state: { epoch: number; floor: number } | null = null;
  private lastBeat = 0;
  private runIds = '';
  /** Each master's `evicted_keys` at the last check. */
  private evicted = new Map<string, number>();
  private readonly handlers: ((loss: RedisLoss) => Promise<void> | void)[] = [];
  /** On a cluster, one marker per master: what sees a loss on a master that does not hold the epoch key. */
  private readonly shards: ShardMarkers | null;
  private readonly rebuildFirst: (() => Promise<unknown>)[] = [];
  private timer: NodeJS.Timeout | undefined;
  private checking: Promise<RedisLoss | null> | null = null;
  private closed = false;
  /** A loss `start` found (Redis empty while Postgres remembers an epoch), for handlers registered after it. */
  startLoss: RedisLoss | null = null;

  constructor(
    private readonly redis: Redis,
    private readonly db: DataSource,
    private readonly opts: { prefix: string; name: string; logger: Logger; metrics?: Metrics },
  ) {
    const keys = new RedisKeys(opts.prefix);
    this.key = keys.key('redis', 'epoch');
    this.shards = redis.isCluster
      ? new ShardMarkers(redis as Cluster, { epoch: this.key, marker: (tag) => keys.key('redis', 'epoch', 'shard', hashTag(tag)) })
      : null;
    byClient.set(redis, this);
  }

  /** The epoch watching this client (the process's shared one), if any: what its event publishers consult. */
  static of(redis: Redis): RedisEpoch | undefined {
    return byClient.get(redis);
  }

  /** The current epoch's number and seq floor; null before `start`. */
  get current(): { epoch: number; floor: number } | null {
    return this.state;
  }

  /** On a cluster, the key of the shard marker that lives in `slot` (shard-markers.ts); null on one Redis. */
  markerKeyOf(slot: number): string | null {
    return this.shards?.markerKey(slot) ?? null;
  }

  /**
   * On a cluster, the ids of the masters the last check found intact, comma-joined ('-' before
   * one): the publish script runs only on one of them, so nothing is numbered on a master that
   * took over since (a replica that may lack writes) before a check has seen it. '' on one Redis.
   */
  get verifiedMasters(): string {
    return this.shards?.verifiedMasters ?? '';
  }

  /**
   * Runs before a new epoch is written, while nothing can publish (the publish script refuses
   * until the epoch key exists): what every announcement reads must be back first (the makers'
   * registrations). A failing step is logged; the epoch opens anyway.
   */
  beforeOpen(step: () => Promise<unknown>): this {
    this.rebuildFirst.push(step);
    return this;
  }

  /**
   * The floor in Redis now, not the one of the last check: read from the epoch key, or, when the
   * key is gone, after this process has noticed the loss and opened (or adopted) the new epoch.
   * What a publisher on a cluster asks before it creates a topic counter (`key`): the marker of
   * the master serving that key is read first, and when it is gone (that master lost its data)
   * or unknown, every master is checked before the floor is answered.
   */
  async freshFloor(key?: string): Promise<number> {
    const marker = key !== undefined ? this.shards?.markerFor(key) : undefined;
    // The marker before the floor: a marker made again after a loss is read only with the new epoch's floor after it.
    const intact = marker === undefined || (marker !== null && (await this.redis.exists(marker)) === 1);
    const floor = intact ? await this.redis.hget(this.key, 'floor') : null;
    if (floor !== null) return Number(floor);
    await this.check();
    if (!this.state) throw new Error('no Redis epoch yet');
    return this.state.floor;
  }

  /** Called with each loss this process notices, after the new epoch is open. */
  onLoss(handler: (loss: RedisLoss) => Promise<void> | void): this {
    this.handlers.push(handler);
    return this;
  }

  /**
   * Adopts the epoch in Redis, or opens the first one. A Redis found empty while Postgres
   * remembers an epoch lost its data before this process started: that loss is returned (and
   * kept in `startLoss` for handlers registered after it).
   */
  async start(): Promise<RedisLoss | null> {
    const servers = await this.readServers().catch(() => null);
    this.runIds = servers?.runIds ?? '';
    this.evicted = servers?.evicted ?? new Map<string, number>();
    const [epoch, beat] = (await BEAT.run(this.redis, [this.key], [])) as [number, number];
    if (epoch > 0) {
      this.adopt(epoch, beat);
      // A master that lost its data while no process watched: its listed marker is gone. A master
      // that does not answer yet is left to the first timed check (publishes wait for one).
      const found = this.shards
        ? await this.shards.inspect().catch((err: unknown) => {
            this.opts.logger.warn({ err: (err as Error).message }, 'redis epoch: the shard markers could not be read at start; the next check reads them');
            return null;
          })
        : null;
      if (!found?.finding) {
        if (found) await this.shards!.accept(found, epoch);
        return null;
      }
      this.startLoss = await this.shardLost(found.finding, epoch, false);
      return this.startLoss;
    }
    const last = await new RedisEpochRepository(this.db).last();
    const opened = await this.open(last === null ? 'first start' : 'found empty at start');
    await this.rebaseShards();
    if (last === null || opened.epoch === Number(last)) return null;
    this.startLoss = await this.lost('empty_at_start', Number(last), false);
    return this.startLoss;
  }

  /** Checks every `everyMs` until `close`; a failed check (Redis down) is tried again at the next tick. */
  startTimer(everyMs: number): this {
    this.timer = setInterval(() => {
      this.check().catch((err: unknown) => this.opts.logger.debug({ err: (err as Error).message }, 'redis epoch check failed; trying again'));
    }, everyMs);
    this.timer.unref();
    return this;
  }

  /** One check now (the timer's, or a caller's that cannot wait for it); concurrent callers share one. */
  check(): Promise<RedisLoss | null> {
    if (this.closed) return Promise.resolve(null);
    this.checking ??= this.checkOnce().finally(() => {
      this.checking = null;
    });
    return this.checking;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    await this.checking?.catch(() => undefined);
  }

  private async checkOnce(): Promise<RedisLoss | null> {
    const { runIds, evicted } = await this.readServers();
    const restarted = this.runIds !== '' && runIds !== this.runIds;
    // A restarted server counts from 0 again: only growth on the same server is an eviction.
    const evictedNow = [...evicted].reduce((n, [server, count]) => n + Math.max(0, count - (this.evicted.get(server) ?? count)), 0);
    this.runIds = runIds;
    this.evicted = evicted;
    const previous = this.state?.epoch ?? null;
    // The markers before the epoch key: a marker changed by a process that opened a new epoch is
    // read here only if the epoch key read next shows that epoch (then it is epoch_replaced).
    const shards = this.shards ? await this.shards.inspect() : null;
    const [epoch, beat] = (await BEAT.run(this.redis, [this.key], [])) as [number, number];
    if (epoch === 0) {
      await this.open('epoch key missing', null);
      await this.rebaseShards();
      return this.lost('epoch_missing', previous, restarted);
    }
    if (epoch !== previous) {
      this.adopt(epoch, beat);
      await this.rebaseShards();
      return this.lost('epoch_replaced', previous, restarted);
    }
    if (beat <= this.lastBeat) {
      // The same epoch, an older heartbeat: the server lost writes it had acknowledged.
      await this.open('writes rolled back', epoch);
      await this.rebaseShards();
      return this.lost('writes_rolled_back', previous, restarted);
    }
    if (shards?.finding) return this.shardLost(shards.finding, epoch, restarted);
    if (evictedNow > 0) {
      await this.open(`${evictedNow} keys evicted`, epoch);
      await this.rebaseShards();
      return this.lost('keys_evicted', previous, restarted, evictedNow);
    }
    this.lastBeat = beat;
    if (shards) await this.shards!.accept(shards, epoch);
    if (restarted) this.opts.logger.info({ epoch, run_id: runIds }, 'Redis restarted or failed over with its data (epoch key intact)');
    return null;
  }

  /**
   * Opens a new epoch unless another process just did (then adopts that one). `replacing`: the
   * epoch this process still sees but has found wanting (writes rolled back, keys evicted); it is
   * replaced only if it is still the one in Redis, so processes noticing the same event together
   * open one new epoch between them.
   */
  private async open(reason: string, replacing: number | null = null): Promise<{ epoch: number; floor: number }> {
    const runner = this.db.createQueryRunner();
    await runner.connect();
    try {
      await runner.startTransaction();
      await runner.query(`SELECT pg_advisory_xact_lock(${EPOCH_LOCK})`);
      const [found, beat] = (await BEAT.run(this.redis, [this.key], [])) as [number, number];
      if (found > 0 && found !== replacing) {
        await runner.commitTransaction();
        return this.adopt(found, beat);
      }
      if (found > 0) await this.redis.del(this.key);
      for (const step of this.rebuildFirst) {
        await step().catch((err: unknown) =>
          this.opts.logger.error({ err: (err as Error).message }, 'redis epoch: a rebuild step before the new epoch failed'),
        );
      }
      const epoch = await new RedisEpochRepository(runner).open(reason, this.opts.name);
      await OPEN.run(this.redis, [this.key], [epoch, epochFloor(epoch), Date.now()]);
      await runner.commitTransaction();
      return this.adopt(epoch, 0);
    } catch (err) {
      if (runner.isTransactionActive) await runner.rollbackTransaction().catch(() => undefined);
      throw err;
    } finally {
      await runner.release();
    }
  }

  /** A master lost data while the epoch key did not (a cluster): the same new epoch and rebuild as any loss. */
  private async shardLost(finding: ShardFinding, epoch: number, restarted: boolean): Promise<RedisLoss> {
    await this.open(`${finding.reason} on ${finding.node} (slot ${finding.slot})`, epoch);
    await this.rebaseShards();
    return this.lost(finding.reason, epoch, restarted, 0, { slot: finding.slot, node: finding.node });
  }

  /**
   * After a new epoch: the markers are read afresh (the new epoch key lists none yet), made again
   * where one was lost, and listed. A failure here is logged, not thrown: the loss must still be
   * reported, and until a check succeeds publishes on a cluster wait (no master is verified).
   */
  private async rebaseShards(): Promise<void> {
    if (!this.shards || !this.state) return;
    this.shards.forget();
    try {
      await this.shards.accept(await this.shards.inspect(), this.state.epoch);
    } catch (err) {
      this.opts.logger.warn({ err: (err as Error).message }, 'redis epoch: the shard markers could not be read after a new epoch; the next check reads them');
    }
  }

  private adopt(epoch: number, beat: number): { epoch: number; floor: number } {
    this.state = { epoch, floor: epochFloor(epoch) };
    this.lastBeat = beat;
    return this.state;
  }

  private async lost(
    reason: RedisLossReason,
    previousEpoch: number | null,
    restarted: boolean,
    evictedKeys = 0,
    shard?: { slot: number; node: string },
  ): Promise<RedisLoss> {
    const loss: RedisLoss = { reason, previousEpoch, epoch: this.state!.epoch, restarted, evictedKeys, ...(shard ? { shard } : {}), detectedAt: Date.now() };
    this.opts.metrics
      ?.counter('rfq_redis_data_loss_total', 'Redis data losses this process noticed (epoch key missing or replaced, writes rolled back)', ['reason'])
      .inc({ reason });
    if (this.handlers.length === 0) {
      this.opts.logger.error(
        { reason, previous_epoch: previousEpoch, epoch: loss.epoch, restarted, evicted_keys: evictedKeys, ...(shard ? { shard } : {}) },
        `redis data loss (${reason}): epoch ${previousEpoch ?? '-'} -> ${loss.epoch}${shard ? ` (${shard.node})` : ''}`,
      );
    }
    for (const h of this.handlers) {
      try {
        await h(loss);
      } catch (err) {
        this.opts.logger.error({ reason, err: (err as Error).message }, 'redis data loss handler failed');
      }
    }
    return loss;
  }

  /**
   * Every master's `run_id`, one string (changes when any of them restarts or fails over), and
   * each one's `evicted_keys`. On a cluster whose client still lists a master that no longer
   * answers (failed over), the slot map is refreshed and this check fails: the next one asks the
   * masters the client has learnt since.
   */
  private async readServers(): Promise<{ runIds: string; evicted: Map<string, number> }> {
    const read = primaryNodes(this.redis).map(async (n) => {
      const [server, stats] = await Promise.all([n.info('server'), n.info('stats')]);
      const runId = /run_id:([0-9a-f]+)/.exec(server)?.[1] ?? '?';
      return { id: `${n.options.host ?? ''}:${n.options.port ?? ''}=${runId}`, evicted: Number(/evicted_keys:(\d+)/.exec(stats)?.[1] ?? 0) };
    });
    const servers = await Promise.all(read).catch((err: unknown) => {
      if (this.redis.isCluster) (this.redis as Cluster).refreshSlotsCache();
      throw err;
    });
    return {
      runIds: servers
        .map((s) => s.id)
        .sort()
        .join(','),
      evicted: new Map(servers.map((s) => [s.id, s.evicted])),
    };
  }
}
