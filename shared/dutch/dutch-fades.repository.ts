import type { Queryable } from '../platform/db';
import { makerOrganizationOf } from '../identity';
import { QUOTE_STATE_SQL as QS } from '../quotes';

/**
 * The SQL of the fade rules (shared/dutch/dutch-fades.ts): what counts as a fade or an open right
 * of a scope, and the indexer's decision of exclusive windows. Fades are counted over Dutch awards
 * and over the orders domain's exclusive fills, which this reads (test/unit/house/sql-owners.ts).
 */

/** Whose fades count together (FadeScope of dutch-fades.ts). */
interface Scope {
  organizationId: string | null;
  maker: string;
}

/** The scope of a wallet with no organization recorded for it (makerOrganizationOf of shared/identity). */
export async function fadeScope(db: Queryable, maker: string): Promise<Scope> {
  const rows: { organization_id: string | null }[] = await db.query(`SELECT ${makerOrganizationOf('$1')} AS organization_id`, [maker]);
  return { organizationId: rows[0]?.organization_id ?? null, maker };
}

/**
 * The end times (ms) of the scope's fades whose window ended after `sinceMs`, oldest first: Dutch
 * awards whose exclusive window passed without a fill, and exclusive fills that expired unused
 * (state expired; the indexer moves one the chain used to `used`, which undoes its fade).
 */
export async function fadeTimes(db: Queryable, scope: Scope, sinceMs: number): Promise<number[]> {
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
export async function openRights(db: Queryable, scope: Scope, windowSinceMs: number, exceptQuote: string | null): Promise<number> {
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

/** The windows decided now, with whether each faded (decideExclusiveWindows of dutch-fades.ts says what and why). */
export async function decideWindows(
  m: Queryable,
  chainId: number,
  block: { number: number; timestamp: number },
  lookbackSeconds: number,
  takerCheckWaitSeconds: number,
): Promise<{ quote_id: string; winner: `0x${string}`; organization_id: string | null; exclusive_ends_at: Date; faded: boolean }[]> {
  return m.query(
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
            COALESCE((SELECT b.organization_id FROM dutch_bids b WHERE b.quote_id = decided.id AND lower(b.maker) = lower(decided.winner)), ${makerOrganizationOf('winner')}),
            missed AND NOT taker_short, missed AND taker_short, taker_address, taker_organization_id,
            exclusive_ends_at, $2::bigint, $3::bigint FROM decided
     ON CONFLICT (quote_id) DO NOTHING
     RETURNING quote_id, winner, organization_id, exclusive_ends_at, faded`,
    [chainId, block.number, block.timestamp, lookbackSeconds, takerCheckWaitSeconds],
  );
}
