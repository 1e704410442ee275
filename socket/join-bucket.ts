/**
 * A connection's join allowance: a token bucket of `burst` joins refilled at `perMinute`.
 * Every join can cost a credential lookup, and with `ROLES=api,socket` that lookup uses the
 * API's database pool, so one connection must not be able to join in a tight loop.
 * Kept to three numbers: one of these lives per connection.
 */
export class JoinBucket {
  private tokens: number;
  private at: number;
  /** Joins refused since the last one let through: a client that ignores the refusals is closed. */
  refusedInARow = 0;

  constructor(
    private readonly burst: number,
    private readonly perMinute: number,
    now: number,
  ) {
    this.tokens = burst;
    this.at = now;
  }

  /** Takes one join; false when the bucket is empty. */
  take(now: number): boolean {
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.at) * this.perMinute) / 60_000);
    this.at = now;
    if (this.tokens >= 1) {
      this.tokens -= 1;
      this.refusedInARow = 0;
      return true;
    }
    this.refusedInARow++;
    return false;
  }
}
