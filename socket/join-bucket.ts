/**
 * A connection's join allowance: a token bucket of `burst` joins refilled at `perMinute`.
 * Every join can cost a credential lookup, and with `ROLES=api,socket` that lookup uses the
 * API's database pool, so one connection must not be able to join in a tight loop.
 *
 * One of these lives per connection, so it is packed into one number the connection keeps:
 * the moment at which the bucket will be full again (the "theoretical arrival time" of the
 * generic cell rate algorithm). A bucket full at `full` holds `burst - (full - now) / interval`
 * tokens at `now`; taking one moves `full` an interval later. That is the token bucket exactly,
 * without a second number for the tokens or an object around them.
 */
export interface JoinRate {
  burst: number;
  perMinute: number;
}

/** Takes one join from a bucket that is full at `full`: the bucket's new `full`, or null when it is empty. */
export function takeJoin(full: number, now: number, rate: JoinRate): number | null {
  const interval = 60_000 / rate.perMinute;
  const from = Math.max(full, now);
  // at least one token left: the debt after taking it stays within the burst
  if (from - now > (rate.burst - 1) * interval) return null;
  return from + interval;
}
