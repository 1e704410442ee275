import type { Queryable } from '../platform/db';
import { AppError } from '../platform/errors';
import { decideWindows, fadeScope, fadeTimes, openRights } from './dutch-fades.repository';

/** DUTCH_FADE_LIMIT, DUTCH_FADE_WINDOW and DUTCH_FADE_COOLDOWN. */
export interface FadePolicy {
  limit: number;
  windowSeconds: number;
  cooldownSeconds: number;
}

/** What GET /api/me and the `dutch_fade` event say about a maker's fades. */
export interface FadeStatus {
  /** Fades within the last `window_seconds`. */
  count: number;
  window_seconds: number;
  limit: number;
  /** Until when the organization's Dutch bids are refused (ISO); null when they are not. */
  blocked_until: string | null;
}

/** Whose fades count together: the winner's maker organization, else the wallet alone. */
export interface FadeScope {
  organizationId: string | null;
  maker: string;
}

/** A fade the indexer just recorded. */
export interface NewFade {
  quote_id: string;
  winner: `0x${string}`;
  organization_id: string | null;
  exclusive_ends_at: Date;
}

/**
 * Refuses a new right (a bid, an exclusive fill) that could bring the scope's fades plus its
 * open rights above the limit: 403 `fade_limit_reserved` with the numbers. Every open right may
 * still become a fade, and the block would come only after the windows had passed.
 */
export async function assertRoomForRight(db: Queryable, scope: FadeScope, policy: FadePolicy, nowMs: number, exceptQuote: string | null): Promise<void> {
  const windowSince = nowMs - policy.windowSeconds * 1000;
  const fades = (await fadeTimes(db, scope, windowSince)).length;
  const open = await openRights(db, scope, windowSince, exceptQuote);
  if (fades + open + 1 <= policy.limit) return;
  throw new AppError(
    403,
    'fade_limit_reserved',
    `this organization has ${fades} fades within ${policy.windowSeconds} seconds and ${open} open exclusive rights (awards not yet decided, bids on competing auctions, live exclusive fills); one more could bring it above the fade limit ${policy.limit}: wait until a right is decided`,
    undefined,
    undefined,
    { fade_limit: { fades, open_rights: open, limit: policy.limit } },
  );
}

/**
 * The fade rule, pure: a fade that is the `limit`-th within `window` seconds (counting itself)
 * blocks until `cooldown` seconds after it. `times` are fade times (ms), oldest first.
 */
export function fadeStatusOf(times: readonly number[], policy: FadePolicy, nowMs: number): FadeStatus {
  const windowMs = policy.windowSeconds * 1000;
  let blockedUntil = 0;
  for (let i = policy.limit - 1; i < times.length; i++) {
    if (times[i] - times[i - policy.limit + 1] <= windowMs) blockedUntil = Math.max(blockedUntil, times[i] + policy.cooldownSeconds * 1000);
  }
  return {
    // A fade is decided by the chain's time, which may run ahead of this clock: one not yet past here still counts.
    count: times.filter((t) => t > nowMs - windowMs).length,
    window_seconds: policy.windowSeconds,
    limit: policy.limit,
    blocked_until: blockedUntil > nowMs ? new Date(blockedUntil).toISOString() : null,
  };
}

/**
 * A maker's fade status now: of the organization its credential acts for (`scope`, from the
 * maker key's own organization or the SIWE wallet's own membership), or, given only a wallet,
 * of the organization makerOrganizationOf (shared/identity) finds.
 */
export async function fadeStatus(db: Queryable, who: FadeScope | string, policy: FadePolicy, nowMs: number): Promise<FadeStatus> {
  const scope = typeof who === 'string' ? await fadeScope(db, who) : who;
  // Fades older than window + cooldown can neither count nor block any more.
  const since = nowMs - (policy.windowSeconds + policy.cooldownSeconds) * 1000;
  return fadeStatusOf(await fadeTimes(db, scope, since), policy, nowMs);
}

/** Refuses a bid of a maker whose organization is blocked: 403 `maker_faded`, with when it may bid again. */
export async function assertNotFaded(db: Queryable, scope: FadeScope, policy: FadePolicy, nowMs: number): Promise<void> {
  const s = await fadeStatus(db, scope, policy, nowMs);
  if (!s.blocked_until) return;
  const retryAfter = Math.max(1, Math.ceil((new Date(s.blocked_until).getTime() - nowMs) / 1000));
  throw new AppError(
    403,
    'maker_faded',
    `${s.limit} Dutch awards of this maker's organization let their exclusive window pass without a fill within ${s.window_seconds} seconds; bids are refused until ${s.blocked_until}`,
    undefined,
    { 'Retry-After': String(retryAfter) },
    { blocked_until: s.blocked_until },
  );
}

/**
 * How long after an exclusive window's end (by the database's clock) the indexer waits for the
 * workers' read of a paying taker's funds (shared/dutch/taker-funds-check.ts) before it decides
 * the window without one, as its winner's. The read is made the moment the window ends; this only
 * bounds how long a window waits when the workers or the chain's RPC are down.
 */
export const TAKER_CHECK_WAIT_SECONDS = 120;

/**
 * The indexer's part, in the batch transaction that moves its cursor to `block`: every awarded
 * Dutch quote of the chain whose exclusive end the block's time has passed, not decided yet, is
 * decided now. It was missed unless the chain holds a DutchFilled of its request by the filler its
 * award names (the winning maker's wallet, or the filler its bid named), exclusive, in a block no
 * later than the window's end; a quote closed (cancelled or expired) before its window ended is
 * nobody's. A missed window is its winner's fade, unless the taker made it impossible to fill:
 * when the taker pays, the workers read its premium balance and allowance when the window ended
 * (`dutch_taker_checks`), and a short taker takes the window (`taker_unfillable`, with the taker
 * and its delegate's organization) instead of the winner. A window whose taker pays and whose read
 * has not arrived waits for it up to TAKER_CHECK_WAIT_SECONDS after its end. The fade is the
 * organization the winning bid was made for (recorded with the bid from the bidding credential),
 * never a later membership. Quotes whose window ended more than `lookbackSeconds` before the block
 * (DUTCH_FADE_WINDOW) can no longer count and are left alone. Rows carry the deciding block, so a
 * rollback below it undoes the decision (DERIVED_TABLES).
 */
export async function decideExclusiveWindows(
  m: Queryable,
  chainId: number,
  block: { number: number; timestamp: number },
  lookbackSeconds: number,
): Promise<NewFade[]> {
  const rows = await decideWindows(m, chainId, block, lookbackSeconds, TAKER_CHECK_WAIT_SECONDS);
  return rows
    .filter((r) => r.faded)
    .map(({ quote_id, winner, organization_id, exclusive_ends_at }) => ({ quote_id, winner, organization_id, exclusive_ends_at }));
}
