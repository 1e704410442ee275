/** Longest a clock sleeps without looking for a new deadline (one created meanwhile may end sooner). */
const LOOK_EVERY_MS = 250;

export interface DeadlineWork {
  /** The soonest deadline after `floor` still to act on, or null. */
  nextDeadline(floor: Date): Promise<Date | null>;
  /** Acts on everything due by `now`; answers how many it moved (0 raises the floor). */
  runDue(now: Date): Promise<number>;
  /** Logged when a pass fails: who still does the work. */
  onFailure(err: Error): void;
}

/**
 * A loop over a table's deadlines (the Dutch clock, the quote expiry clock): it sleeps until the
 * soonest deadline, acts on everything due, and looks again at once when it moved something (a
 * batch has a limit). Deadlines up to a pass that moved nothing are below its floor: what is still
 * there is held by another replica or failed, and is left to the jobs or the sweeper, so the
 * clock does not wake for it again and again. `close()` stops after the pass under way.
 */
export class DeadlineClock {
  private stopped = false;
  private wake: (() => void) | null = null;
  private running: Promise<void> | null = null;
  private floor = new Date(0);

  constructor(
    private readonly work: DeadlineWork,
    private readonly clock: () => number = Date.now,
  ) {}

  start(): void {
    this.running ??= this.loop();
  }

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

  /** One look: act on what is due, and say how long to sleep before the next look. */
  private async pass(): Promise<number> {
    try {
      const next = await this.work.nextDeadline(this.floor);
      if (!next) return LOOK_EVERY_MS;
      const wait = next.getTime() - this.clock();
      if (wait > 0) return Math.min(wait, LOOK_EVERY_MS);
      const now = new Date(this.clock());
      if ((await this.work.runDue(now)) === 0) this.floor = now;
      return 0;
    } catch (err) {
      this.work.onFailure(err as Error);
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
