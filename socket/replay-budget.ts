/**
 * Bytes of history one connection has been sent from replays in the current window. Without
 * it a client can leave and rejoin with `last_seq: 0` in a loop and have the replica read and
 * send the whole history (up to SOCKET_HISTORY_MAX_EVENTS events) each time. The check is made
 * before a replay and the cost counted after it, so one replay may go past the budget; the next
 * one in the window is refused.
 */
export class ReplayBudget {
  private windowStart: number;
  private used = 0;

  constructor(
    private readonly limitBytes: number,
    private readonly windowMs: number,
    now: number,
  ) {
    this.windowStart = now;
  }

  /** True when a replay may start now. */
  allows(now: number): boolean {
    this.roll(now);
    return this.used < this.limitBytes;
  }

  spend(bytes: number, now: number): void {
    this.roll(now);
    this.used += bytes;
  }

  /** Whole seconds until the window turns over. */
  secondsLeft(now: number): number {
    return Math.max(1, Math.ceil((this.windowStart + this.windowMs - now) / 1000));
  }

  private roll(now: number): void {
    if (now - this.windowStart < this.windowMs) return;
    this.windowStart = now;
    this.used = 0;
  }
}
