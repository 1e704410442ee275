import { DutchRepository } from '../../shared/dutch';
import type { WorkerContext } from '../worker-context';

/**
 * Longest the clock sleeps without looking for a new deadline. An auction whose competition is
 * shorter than this from its creation may be decided by its own job instead (on time too, give
 * or take BullMQ's delayed-job latency).
 */
const LOOK_EVERY_MS = 250;

/**
 * Advances Dutch auctions at their deadlines, in batches, without waiting for their jobs: it
 * sleeps until the earliest competition or exclusive window ends, then awards and opens every
 * auction due (DutchAuctioneer.advanceDue). BullMQ's delayed jobs fire tens of milliseconds
 * after their time even when idle, and under a thousand deadlines a second they queue; this
 * loop wakes within a millisecond or two and decides each instant's auctions in one transaction.
 * It is an accelerator only: every auction keeps its jobs (which then find their work done in one
 * read) and the sweeper, so a replica without a clock, or one that dies, loses nothing. Replicas
 * racing for the same instant split it by row locks; guarded statements decide.
 */
export class DutchClock {
  private readonly repo: DutchRepository;
  private stopped = false;
  private wake: (() => void) | null = null;
  private running: Promise<void> | null = null;
  /**
   * Deadlines up to here were looked at by a pass that moved nothing: what is still undecided
   * of them is held by another run or cannot be decided now, and is its own job's to retry.
   * Without this floor the clock would wake for it again and again.
   */
  private floor = new Date(0);

  constructor(
    private readonly ctx: Pick<WorkerContext, 'db' | 'dutch' | 'logger'>,
    private readonly clock: () => number = Date.now,
  ) {
    this.repo = new DutchRepository(ctx.db);
  }

  start(): void {
    this.running ??= this.loop();
  }

  /** Stops after the pass under way (its transactions commit and publish, as a job's would). */
  async close(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.running;
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      await this.sleep(await this.pass());
    }
  }

  /** One look: advance what is due, and say how long to sleep before the next look. */
  private async pass(): Promise<number> {
    try {
      const next = await this.repo.nextDeadline(this.floor);
      if (!next) return LOOK_EVERY_MS;
      const wait = next.getTime() - this.clock();
      if (wait > 0) return Math.min(wait, LOOK_EVERY_MS);
      const startedAt = new Date(this.clock());
      // Moved something: more may be due at once (a batch has a limit). Moved nothing: raise the floor.
      if ((await this.ctx.dutch.advanceDue()) === 0) this.floor = startedAt;
      return 0;
    } catch (err) {
      this.ctx.logger.warn({ err: (err as Error).message }, 'Dutch clock pass failed; the jobs and the sweeper still advance the auctions');
      return LOOK_EVERY_MS;
    }
  }

  private sleep(ms: number): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (ms <= 0) return new Promise((r) => setImmediate(r));
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.wake = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = done;
    });
  }
}
