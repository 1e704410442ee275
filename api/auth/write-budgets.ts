import { dependencyOutage, ServiceUnavailableError, TooManyRequestsError } from '../../shared/platform/errors';
import { hashTag, luaScript, RedisKeys, type Redis } from '../../shared/platform/redis';

/** Charges a request's budgets in order, stopping at the first refusal (shared/platform/redis/lua/write-budgets-charge-3.lua). */
const CHARGE = luaScript('write-budgets-charge');

/** Client IPs remembered as over their budget, per family and process; the oldest is forgotten first past this. */
const MAX_REMEMBERED = 10_000;

export interface WriteBudgetLimits {
  perIp: number;
  perCredential: number;
  windowSeconds: number;
  /**
   * The config keys of the two budgets, named in a 429's `limit` (the Explore gate's, whose
   * refusals say which budget ran out); without them a 429 names none, as a write's does.
   */
  names?: { perIp: string; perCredential: string };
}

/**
 * One family of budgets: a fixed window per client IP and one per credential bucket, charged in
 * one Redis round trip. The families are the writes' (quote creates, dry-runs, every other write:
 * api/auth/write-limits.ts) and one per Explore route (api/auth/explore-gate.ts). The counters of
 * a family share one hash tag, so the script that charges the IP and the credential buckets of a
 * request touches one cluster slot (a family's counters live on one master; the families spread
 * over the masters). The IP is charged first, then each credential bucket in the order given; the
 * first budget over its limit refuses the request, and the budgets after it are not charged, as
 * when they were charged one call each. Counted as rate-limiter-flexible counts a fixed window
 * (the script's header), so limits, windows and Retry-After are what they were. (The name is the
 * writes', which had it first.)
 *
 * A client IP refused here is remembered in this process until its window ends: the requests it
 * sends the family meanwhile are refused from memory (`knownRefusal`) before their bearer is
 * resolved, so a flood over the IP budget costs no Redis call and no credential lookup, as the IP
 * charge taken before the lookup guaranteed when the charges were separate calls. Redis would
 * refuse them too: a window's counter only grows until it expires.
 */
export class WriteBudgets {
  private readonly keys: RedisKeys;
  private readonly tag: string;
  private readonly refusedIps = new Map<string, number>();

  constructor(
    private readonly redis: Redis,
    prefix: string,
    readonly family: string,
    private readonly limits: WriteBudgetLimits,
  ) {
    this.keys = new RedisKeys(prefix);
    this.tag = hashTag(family);
  }

  /** The counter of a client IP's bucket (`ipBucket`) or of a credential bucket (`credentialBuckets`). */
  key(kind: 'ip' | 'credential', bucket: string): string {
    return this.keys.key('rl', this.tag, kind, bucket);
  }

  /** The 429 for a client IP this process saw refused in a window that has not ended; null otherwise. */
  knownRefusal(ip: string): TooManyRequestsError | null {
    const until = this.refusedIps.get(ip);
    if (until === undefined) return null;
    const left = until - Date.now();
    if (left <= 0) {
      this.refusedIps.delete(ip);
      return null;
    }
    return new TooManyRequestsError(left / 1000, undefined, this.limits.names?.perIp);
  }

  /**
   * Takes one point from the client IP's budget, then from each credential bucket (at most two:
   * a delegate's own and its taker key's). Over a budget: 429 with Retry-After, the seconds until
   * that budget's window ends, and the budget in `limit` when the family has `names`. Redis down:
   * 503 `redis_unavailable`; any other store error: 503 `rate_limiter_unavailable` (fails closed).
   */
  async charge(ip: string, credentials: readonly string[]): Promise<void> {
    if (credentials.length > 2) throw new Error(`at most two credential buckets, got ${credentials.length}`);
    const keys = [this.key('ip', ip), ...credentials.map((c) => this.key('credential', c))];
    const limits = [this.limits.perIp, ...credentials.map(() => this.limits.perCredential)];
    while (keys.length < 3) keys.push(keys[0]);
    // Taken before the call: the window Redis reports ends no earlier than this plus its ms.
    const sent = Date.now();
    let answer: unknown;
    try {
      answer = await CHARGE.run(this.redis, keys, [this.limits.windowSeconds, ...limits]);
    } catch (err) {
      throw dependencyOutage(err) ?? new ServiceUnavailableError('rate limiter unavailable', 'rate_limiter_unavailable', 1);
    }
    const [refused, ms] = (answer as [number, number]).map(Number);
    if (refused === 0) return;
    if (refused === 1) this.remember(ip, sent + ms);
    throw new TooManyRequestsError(ms / 1000, undefined, refused === 1 ? this.limits.names?.perIp : this.limits.names?.perCredential);
  }

  private remember(ip: string, until: number): void {
    this.refusedIps.delete(ip);
    if (this.refusedIps.size >= MAX_REMEMBERED) this.refusedIps.delete(this.refusedIps.keys().next().value as string);
    this.refusedIps.set(ip, until);
  }
}
