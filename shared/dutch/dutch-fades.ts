import type { Queryable } from '../platform/db';
import { AppError } from '../platform/errors';
import { QUOTE_STATE_SQL as QS } from '../quotes';

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
 * The maker organization a wallet acts for when nothing recorded it (bids made before bids
 * carried their organization): the organization that issued its maker API key (a bot wallet),
 * else the one it is a member of; null for neither. The key comes first: a key's organization
 * is the one that issued it, and no other organization can change that, while a membership is
 * something another organization's admin could once add.
 */
export const ORGANIZATION_OF = (address: string) => `COALESCE(
  (SELECT organization_id FROM api_keys WHERE kind = 'maker' AND lower(address) = lower(${address}) ORDER BY revoked_at IS NULL DESC, created_at DESC LIMIT 1),
  (SELECT organization_id FROM organization_members WHERE kind = 'maker' AND lower(address) = lower(${address}) LIMIT 1))`;

/** The scope of a wallet with no organization recorded for it (see ORGANIZATION_OF). */
export async function fadeScope(db: Queryable, maker: string): Promise<FadeScope> {
  const rows: { organization_id: string | null }[] = await db.query(`SELECT ${ORGANIZATION_OF('$1')} AS organization_id`, [maker]);
  return { organizationId: rows[0]?.organization_id ?? null, maker };
}

/**
 * The end times (ms) of the scope's fades whose window ended after `sinceMs`, oldest first: Dutch
 * awards whose exclusive window passed without a fill, and exclusive fills that expired unused
 * (state expired; the indexer moves one the chain used to `used`, which undoes its fade).
 */
async function fadeTimes(db: Queryable, scope: FadeScope, sinceMs: number): Promise<number[]> {
  const rows: { t: Date }[] = scope.organizationId
    ? await db.query(
        `SELECT exclusive_ends_at AS t FROM dutch_exclusive_outcomes WHERE faded AND organization_id = $1 AND exclusive_ends_at > $2
         UNION ALL
         SELECT expire_time AS t FROM exclusive_fills WHERE state = 'expired' AND organization_id = $1 AND expire_time > $2
         ORDER BY t`,
        [scope.organizationId, new Date(sinceMs)],
      )
    : await db.query(
        `SELECT exclusive_ends_at AS t FROM dutch_exclusive_outcomes WHERE faded AND lower(winner) = lower($1) AND exclusive_ends_at > $2
         UNION ALL
         SELECT expire_time AS t FROM exclusive_fills WHERE state = 'expired' AND organization_id IS NULL AND lower(maker) = lower($1) AND expire_time > $2
         ORDER BY t`,
        [scope.maker, new Date(sinceMs)],
      );
  return rows.map((r) => new Date(r.t).getTime());
}

/**
 * The scope's rights that may still become fades: Dutch awards whose window is not decided yet,
 * bids on auctions still competing (each could win), and live exclusive fills. `exceptQuote`:
 * the auction being bid on now (a replaced bid is not a second right).
 */
export async function openRights(db: Queryable, scope: FadeScope, windowSinceMs: number, exceptQuote: string | null): Promise<number> {
  const byOrg = scope.organizationId !== null;
  const who = byOrg ? scope.organizationId : scope.maker;
  const bidOf = byOrg ? `b.organization_id = $1` : `b.organization_id IS NULL AND lower(b.maker) = lower($1)`;
  const fillOf = byOrg ? `f.organization_id = $1` : `f.organization_id IS NULL AND lower(f.maker) = lower($1)`;
  const rows: { n: number }[] = await db.query(
    `SELECT (
       (SELECT count(*) FROM dutch_bids b JOIN quotes q ON q.id = b.quote_id
         WHERE ${bidOf} AND q.id IS DISTINCT FROM $3::uuid AND (
           (q.state = ${QS.open} AND q.dutch_phase = 'competing')
           OR (q.winner IS NOT NULL AND lower(q.winner) = lower(b.maker) AND q.exclusive_ends_at > $2
               AND NOT EXISTS (SELECT 1 FROM dutch_exclusive_outcomes o WHERE o.quote_id = q.id))))
       + (SELECT count(*) FROM exclusive_fills f WHERE ${fillOf} AND f.state = 'active')
     )::int AS n`,
    [who, new Date(windowSinceMs), exceptQuote],
  );
  return rows[0]?.n ?? 0;
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
 * of the organization ORGANIZATION_OF finds.
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
  const rows: NewFade[] = await m.query(
    `WITH due AS (
       SELECT q.id, q.winner, q.award, q.exclusive_ends_at, q.dutch_request_digest, q.taker_address, q.taker_organization_id,
              ceil(extract(epoch FROM q.exclusive_ends_at))::bigint AS end_s,
              (q.state IN (${QS.cancelled},${QS.expired}) AND q.closed_at <= q.exclusive_ends_at) AS closed_early,
              COALESCE(c.short, false) AS taker_short
         FROM quotes q LEFT JOIN dutch_taker_checks c ON c.quote_id = q.id
        WHERE q.chain_id = $1::integer AND q.winner IS NOT NULL AND q.exclusive_ends_at IS NOT NULL
          AND q.exclusive_ends_at < to_timestamp($3::bigint) AND q.exclusive_ends_at > to_timestamp($3::bigint - $4::bigint)
          AND NOT EXISTS (SELECT 1 FROM dutch_exclusive_outcomes o WHERE o.quote_id = q.id)
          AND (c.quote_id IS NOT NULL OR q.state = ${QS.filled}
               OR (q.dutch_request->'dutch_premium'->>'maker_pays_taker') IS DISTINCT FROM 'false'
               OR q.exclusive_ends_at <= now() - make_interval(secs => $5::integer))
     ), decided AS (
       SELECT d.*, NOT d.closed_early AND NOT EXISTS (
                SELECT 1 FROM indexer_settlements s
                  JOIN indexer_events e ON e.chain_id = s.chain_id AND e.block_number = s.block_number AND e.log_index = s.log_index
                 WHERE s.chain_id = $1 AND s.taker_address_hash = d.dutch_request_digest
                   AND lower(s.maker) = lower(COALESCE(d.award->>'filler', d.winner)) AND s.block_timestamp <= d.end_s
                   AND e.event_name = 'DutchFilled' AND e.args->>'exclusive' = 'true'
              ) AS missed
         FROM due d
     )
     INSERT INTO dutch_exclusive_outcomes (quote_id, chain_id, winner, organization_id, faded, taker_unfillable, taker, taker_organization_id,
                                           exclusive_ends_at, decided_block, decided_block_timestamp)
     SELECT id, $1::integer, winner,
            COALESCE((SELECT b.organization_id FROM dutch_bids b WHERE b.quote_id = decided.id AND lower(b.maker) = lower(decided.winner)), ${ORGANIZATION_OF('winner')}),
            missed AND NOT taker_short, missed AND taker_short, taker_address, taker_organization_id,
            exclusive_ends_at, $2::bigint, $3::bigint FROM decided
     ON CONFLICT (quote_id) DO NOTHING
     RETURNING quote_id, winner, organization_id, exclusive_ends_at, faded`,
    [chainId, block.number, block.timestamp, lookbackSeconds, TAKER_CHECK_WAIT_SECONDS],
  );
  return rows
    .filter((r) => (r as NewFade & { faded: boolean }).faded)
    .map(({ quote_id, winner, organization_id, exclusive_ends_at }) => ({ quote_id, winner, organization_id, exclusive_ends_at }));
}
