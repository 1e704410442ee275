import type { DataSource } from 'typeorm';
import { dependencyOutage } from '../errors/dependency-errors';
import { withoutPassword } from '../logging/redact-url';

/** What the router knows of one replica from its latest check. */
export interface ReplicaState {
  /** The replica's URL without its password. */
  name: string;
  /** It answered the latest check and is a standby in recovery. */
  up: boolean;
  /** How far it was behind the primary at the latest check, ms (null when down or never checked). */
  lagMs: number | null;
  /** It serves reads now: up and within the lag bound. */
  serving: boolean;
  /** Why not, when it does not. */
  problem?: string;
}

export interface ReadReplicasOptions {
  /** A replica further behind than this serves no reads. */
  maxLagMs: number;
  /** How often each replica is checked. */
  checkMs: number;
  /** Told when a replica starts or stops serving reads. */
  onChange?: (state: ReplicaState) => void;
  /** Counts each routed read by where it ran (`replica` or `primary`). */
  onRead?: (target: 'replica' | 'primary') => void;
}

interface Replica {
  ds: DataSource;
  state: ReplicaState;
}

/** The replica lost its session or refused one, or cancelled the read for a conflict with replay. */
function replicaUnusable(err: unknown): boolean {
  if (dependencyOutage(err)?.dependency === 'database') return true;
  const e = err as { code?: unknown; driverError?: { code?: unknown } } | null;
  // 40001 on a standby: "canceling statement due to conflict with recovery".
  return e?.code === '40001' || e?.driverError?.code === '40001';
}

/** A pg_lsn's text (`16/B374D848`) as a number that orders like the LSN. */
function lsnValue(text: string): bigint {
  const [hi, lo] = text.split('/');
  return (BigInt(`0x${hi}`) << 32n) | BigInt(`0x${lo}`);
}

/**
 * Routes reads that tolerate a little lag to Postgres streaming replicas, and everything else to
 * the primary.
 *
 * `reader()` is a DataSource whose `query` and `transaction` run on a replica that answered its
 * latest check within the lag bound (round robin among those), and on the primary when none
 * does. A read that fails on a replica because the replica is gone (or cancelled the read for a
 * conflict with replay) runs again on the primary at once, and the replica serves nothing more
 * until a check finds it back: a dead replica costs no request an error. Everything else on the
 * reader (repositories, the entity manager) is the primary's. Only read-only code may use it.
 *
 * Lag: every `checkMs` the router samples the primary's WAL position (`pg_current_wal_lsn()`,
 * remembering when each new position was first seen) and each replica's replayed position
 * (`pg_last_wal_replay_lsn()`). A replica's lag is how long ago the primary first stood past
 * what the replica has replayed: 0 when it has replayed everything of the latest sample (an idle
 * primary makes no lag), otherwise at least that old. A replica serves reads while its lag is
 * within `maxLagMs`, so what a read misses is at most `maxLagMs + checkMs` old. Checks run in the
 * background: a read never waits for one, and a replica starts serving only after its first
 * check.
 *
 * Every query is a single statement or one transaction: nothing is left on a session, so the
 * replica pools may point at PgBouncer in transaction mode.
 */
export class ReadReplicas {
  private readonly replicas: Replica[];
  private next = 0;
  private timer: NodeJS.Timeout | null = null;
  private checking: Promise<void> | null = null;
  private readonly readerDs: DataSource;
  /** The primary's WAL position over time (oldest first), each entry when it was first seen. */
  private readonly history: { at: number; lsn: bigint }[] = [];

  constructor(
    private readonly primary: DataSource,
    replicas: { url: string; ds: DataSource }[],
    private readonly opts: ReadReplicasOptions,
  ) {
    this.replicas = replicas.map((r) => ({
      ds: r.ds,
      state: { name: withoutPassword(r.url, 'replica'), up: false, lagMs: null, serving: false, problem: 'not checked yet' },
    }));
    this.readerDs = this.buildReader();
  }

  /** Starts the periodic checks (the first one now). */
  start(): void {
    if (this.timer || this.replicas.length === 0) return;
    void this.check();
    this.timer = setInterval(() => void this.check(), this.opts.checkMs);
    this.timer.unref();
  }

  /** Stops the checks and closes the replica pools (the primary is the caller's). */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.checking?.catch(() => undefined);
    await Promise.all(this.replicas.map((r) => (r.ds.isInitialized ? r.ds.destroy() : Promise.resolve())));
  }

  /** The DataSource read-only code that tolerates lag is given. */
  reader(): DataSource {
    return this.readerDs;
  }

  /** Each replica as of its latest check. */
  states(): ReplicaState[] {
    return this.replicas.map((r) => ({ ...r.state }));
  }

  /** Runs one check of every replica now (also what the timer runs); concurrent callers share it. */
  check(): Promise<void> {
    this.checking ??= this.runCheck().finally(() => {
      this.checking = null;
    });
    return this.checking;
  }

  private async runCheck(): Promise<void> {
    try {
      const [row] = (await this.primary.query('SELECT pg_current_wal_lsn()::text AS lsn')) as { lsn: string }[];
      this.samplePrimary(Date.now(), lsnValue(row.lsn));
    } catch {
      // The primary is down: no new sample; the replicas are measured against the older ones.
    }
    await Promise.all(this.replicas.map((r) => this.checkOne(r)));
  }

  /** Keeps the primary's WAL positions of the last maxLag + 2 checks, one per change. */
  private samplePrimary(at: number, lsn: bigint): void {
    const last = this.history[this.history.length - 1];
    if (!last || lsn > last.lsn) this.history.push({ at, lsn });
    const horizon = at - this.opts.maxLagMs - 2 * this.opts.checkMs;
    let drop = 0;
    while (drop < this.history.length - 1 && this.history[drop + 1].at <= horizon) drop++;
    if (drop > 0) this.history.splice(0, drop);
  }

  /**
   * How long ago the primary first stood past `replayed`: 0 when the replica has everything the
   * primary had at its latest sample; null before any sample; beyond the bound when it is behind
   * every sample kept.
   */
  private lagOf(replayed: bigint, now: number): number | null {
    if (this.history.length === 0) return null;
    const i = this.history.findIndex((s) => s.lsn > replayed);
    if (i < 0) return 0;
    // Behind even the oldest sample: when it fell behind is not known (a router just started,
    // or older than the samples kept), so it counts as beyond the bound until a later sample
    // shows it past the oldest one.
    if (i === 0) return Math.max(now - this.history[0].at, this.opts.maxLagMs + 1);
    return Math.max(0, now - this.history[i].at);
  }

  private async checkOne(r: Replica): Promise<void> {
    let next: ReplicaState;
    try {
      if (!r.ds.isInitialized) await r.ds.initialize();
      const [row] = (await r.ds.query('SELECT pg_is_in_recovery() AS standby, pg_last_wal_replay_lsn()::text AS replayed')) as {
        standby: boolean;
        replayed: string | null;
      }[];
      if (!row.standby || row.replayed === null) {
        next = { ...r.state, up: false, lagMs: null, serving: false, problem: 'not a streaming standby (pg_is_in_recovery() is false)' };
      } else {
        const lagMs = this.lagOf(lsnValue(row.replayed), Date.now());
        const within = lagMs !== null && lagMs <= this.opts.maxLagMs;
        next = {
          ...r.state,
          up: true,
          lagMs,
          serving: within,
          problem: within ? undefined : lagMs === null ? 'lag unknown (the primary has not answered yet)' : `behind by ${lagMs} ms`,
        };
      }
    } catch (err) {
      next = { ...r.state, up: false, lagMs: null, serving: false, problem: `unreachable: ${(err as Error).message}` };
    }
    this.setState(r, next);
  }

  private setState(r: Replica, next: ReplicaState): void {
    const changed = next.serving !== r.state.serving;
    r.state = next;
    if (changed) this.opts.onChange?.({ ...next });
  }

  /** A serving replica, round robin, or null for the primary. */
  private pick(): Replica | null {
    const n = this.replicas.length;
    for (let i = 0; i < n; i++) {
      const r = this.replicas[(this.next + i) % n];
      if (r.state.serving) {
        this.next = (this.next + i + 1) % n;
        return r;
      }
    }
    return null;
  }

  /** Runs `fn` on a serving replica, or on the primary when none serves or the replica fails as a replica. */
  private async route<T>(fn: (ds: DataSource) => Promise<T>): Promise<T> {
    const r = this.pick();
    if (r) {
      try {
        const out = await fn(r.ds);
        this.opts.onRead?.('replica');
        return out;
      } catch (err) {
        if (!replicaUnusable(err)) throw err;
        this.setState(r, { ...r.state, up: false, lagMs: null, serving: false, problem: `failed a read: ${(err as Error).message}` });
      }
    }
    const out = await fn(this.primary);
    this.opts.onRead?.('primary');
    return out;
  }

  private buildReader(): DataSource {
    const query = (sql: string, params?: unknown[]) => this.route((ds) => ds.query(sql, params));
    const transaction = (...args: unknown[]) => this.route((ds) => (ds.transaction as (...a: unknown[]) => Promise<unknown>).apply(ds, args));
    return new Proxy(this.primary, {
      get(target, prop, receiver) {
        if (prop === 'query') return query;
        if (prop === 'transaction') return transaction;
        const v = Reflect.get(target, prop, receiver) as unknown;
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    });
  }
}
