import type { WriteWatch } from './write-watch';

/**
 * What the fuzz compares around a request: rows per table, and this test's Redis keys, each
 * with the moment (ms since the epoch) its TTL runs out (Infinity without one), so that a key
 * that expired on its own between two snapshots is not taken for a delete. `takenAt` is when the
 * snapshot ended.
 */
export interface WriteSnapshot {
  rows: Record<string, number>;
  redisKeys: Map<string, number>;
  takenAt: number;
}

/** What changed from one snapshot to the next (a table's row count, a Redis key come or gone), or null. */
export function writeBetween(before: WriteSnapshot, after: WriteSnapshot): string | null {
  const tables = Object.keys(after.rows).filter((t) => after.rows[t] !== before.rows[t]);
  const parts = tables.map((t) => `${t} ${before.rows[t]} -> ${after.rows[t]}`);
  const created = [...after.redisKeys.keys()].filter((k) => !before.redisKeys.has(k));
  // A key gone is a delete unless its TTL had run out by the second snapshot: keys expire on their
  // own, and how many do during the run depends on how long the machine takes over it.
  const deleted = [...before.redisKeys].filter(([k, endsAt]) => !after.redisKeys.has(k) && endsAt > after.takenAt).map(([k]) => k);
  if (created.length > 0) parts.push(`redis keys created: ${created.join(', ')}`);
  if (deleted.length > 0) parts.push(`redis keys deleted: ${deleted.join(', ')}`);
  return parts.length > 0 ? parts.join(', ') : null;
}

/**
 * The fuzz's "a 4xx writes nothing", without a full snapshot after every request. The verdict is
 * the snapshot diff, as before: a table's row count or a Redis key (come or gone) under the test's
 * prefix that moved. The write watch (write-watch.ts) decides when the diff is taken: after any
 * request during which something was written (then the snapshot becomes the new baseline, whatever
 * the status), and after every `sampleEvery`-th request whatever the watch heard. A sampled diff
 * that finds a change the watch did not hear fails, whatever the status: it is the watch that is
 * wrong then.
 *
 * Why a quiet watch is enough: the baseline is taken after a drain, so every write after that
 * drain (the ones the baseline saw included) is heard at the next one. While drains hear nothing,
 * the state is the baseline's, but for keys that expire on their own, which the diff forgives.
 */
export class WriteCheck {
  private baseline: WriteSnapshot | undefined;
  /** Requests checked, full snapshots taken, and 4xx the watch heard write whose diff found nothing (an UPDATE, a key overwritten). */
  readonly counts = { checked: 0, snapshots: 0, heardWithoutChange4xx: 0 };
  /** The first few of those, for the summary. */
  readonly heardWithoutChangeExamples: string[] = [];

  constructor(
    private readonly snapshot: () => Promise<WriteSnapshot>,
    private readonly watch: WriteWatch,
    private readonly sampleEvery: number,
  ) {}

  /** Takes the baseline: call before the first request. */
  async start(): Promise<void> {
    await this.watch.drain();
    this.baseline = await this.snapshot();
    this.counts.snapshots++;
  }

  /** After a request answered `status`: why it broke the rule, or null. `label` names the request in the summary. */
  async after(status: number, label: () => string): Promise<string | null> {
    if (!this.baseline) throw new Error('WriteCheck.after before start');
    const n = ++this.counts.checked;
    const heard = await this.watch.drain();
    if (heard.length === 0 && n % this.sampleEvery !== 0) return null;
    const after = await this.snapshot();
    this.counts.snapshots++;
    const before = this.baseline;
    this.baseline = after;
    const wrote = writeBetween(before, after);
    if (wrote && heard.length === 0) return `the write watch heard nothing, but the sampled snapshot found: ${wrote}`;
    if (status < 400 || status >= 500) return null;
    if (wrote) return `wrote: ${wrote} (the watch heard: ${heard.join(', ')})`;
    if (heard.length > 0) {
      this.counts.heardWithoutChange4xx++;
      if (this.heardWithoutChangeExamples.length < 5)
        this.heardWithoutChangeExamples.push(`${status} to ${label()}: heard ${[...new Set(heard)].join(', ').slice(0, 300)}`);
    }
    return null;
  }
}
