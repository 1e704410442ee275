import type { Queryable } from '../platform/db';
import { AppError } from '../platform/errors';
import { fadeStatusOf, type FadePolicy, type FadeStatus } from './dutch-fades';
import { TakerUnfillableRepository, type UnfillableScope } from './taker-unfillable.repository';

/** DUTCH_TAKER_UNFILLABLE_LIMIT, _WINDOW and _COOLDOWN: the fade rule's shape, for takers. */
export type UnfillablePolicy = FadePolicy;

/** Who creates a Dutch auction: the wallet that signed it, and the taker organization of the delegate it came with (null without one). */
export interface DutchTaker {
  address: `0x${string}`;
  organizationId: string | null;
}

/** A scope's unfillable windows: how many within the window, and until when they refuse new auctions. */
export async function unfillableStatus(db: Queryable, scope: UnfillableScope, policy: UnfillablePolicy, nowMs: number): Promise<FadeStatus> {
  // Windows older than window + cooldown can neither count nor refuse any more.
  const since = nowMs - (policy.windowSeconds + policy.cooldownSeconds) * 1000;
  return fadeStatusOf(await new TakerUnfillableRepository(db).windowEnds(scope, since), policy, nowMs);
}

/**
 * Refuses a new Dutch auction of a taker over its limit: `DUTCH_TAKER_UNFILLABLE_LIMIT` windows
 * within `DUTCH_TAKER_UNFILLABLE_WINDOW` that its winner could not fill because the taker's
 * premium balance or allowance was short when the window ended, counted by the taker's address
 * and, for a delegate, by its taker organization. 403 `taker_unfillable_limit` naming the limit,
 * with `blocked_until` and Retry-After.
 */
export async function assertTakerMayAuction(db: Queryable, taker: DutchTaker, policy: UnfillablePolicy, nowMs: number): Promise<void> {
  const scopes: { scope: UnfillableScope; who: string }[] = [{ scope: { taker: taker.address }, who: `taker ${taker.address}` }];
  if (taker.organizationId)
    scopes.push({ scope: { organizationId: taker.organizationId }, who: `the delegates of taker organization ${taker.organizationId}` });
  for (const { scope, who } of scopes) {
    const s = await unfillableStatus(db, scope, policy, nowMs);
    if (!s.blocked_until) continue;
    const retryAfter = Math.max(1, Math.ceil((new Date(s.blocked_until).getTime() - nowMs) / 1000));
    throw new AppError(
      403,
      'taker_unfillable_limit',
      `${who} made ${s.count} Dutch exclusive windows impossible to fill within ${s.window_seconds} seconds (the premium balance or allowance to the mothership was short of the winner's price when the window ended): DUTCH_TAKER_UNFILLABLE_LIMIT is ${s.limit}; new Dutch auctions are refused until ${s.blocked_until}`,
      undefined,
      { 'Retry-After': String(retryAfter) },
      { limit: 'DUTCH_TAKER_UNFILLABLE_LIMIT', blocked_until: s.blocked_until },
    );
  }
}
