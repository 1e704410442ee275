import type { Queryable } from '../platform/db';
import type { JsonObject } from './dutch.types';

/** An awarded window that ended and whose paying taker's funds were not read yet. */
export interface DueTakerCheck {
  id: string;
  chain_id: number;
  taker_address: `0x${string}`;
  dutch_request: JsonObject;
  award: JsonObject;
}

/** What the workers read from the chain about a taker's premium funds when its window ended. */
export interface TakerCheckRow {
  quote_id: string;
  chain_id: number;
  taker: string;
  token: string;
  spender: string;
  owed: bigint;
  balance: bigint;
  allowance: bigint;
  short: boolean;
  block_number: bigint;
  block_timestamp: number;
}

/** Whose unfillable windows count together: the taker's address, or the taker organization of the delegates that created them. */
export type UnfillableScope = { taker: string } | { organizationId: string };

/** The SQL of unfillable takers: the chain reads of takers' funds, and the windows recorded against takers. */
export class TakerUnfillableRepository {
  constructor(private readonly db: Queryable) {}

  /**
   * Of `ids`, the quotes whose funds check is due at `now`: a winner, its exclusive window over, the
   * taker pays the premium, not filled, not read yet, and not decided by the indexer yet (a read
   * after the decision could change nothing).
   */
  async due(ids: readonly string[], now: Date): Promise<DueTakerCheck[]> {
    if (ids.length === 0) return [];
    return this.db.query(
      `SELECT q.id, q.chain_id, q.taker_address, q.dutch_request, q.award
         FROM quotes q
        WHERE q.id = ANY($1::uuid[]) AND q.offer_format = 'dutch_only' AND q.winner IS NOT NULL AND q.award IS NOT NULL
          AND q.exclusive_ends_at <= $2 AND q.state <> 'filled'
          AND (q.dutch_request->'dutch_premium'->>'maker_pays_taker') = 'false'
          AND NOT EXISTS (SELECT 1 FROM dutch_taker_checks c WHERE c.quote_id = q.id)
          AND NOT EXISTS (SELECT 1 FROM dutch_exclusive_outcomes o WHERE o.quote_id = q.id)`,
      [ids, now],
    );
  }

  /** Records a read; the first read of a quote stands (a concurrent run's is dropped). True when this call stored it. */
  async record(r: TakerCheckRow): Promise<boolean> {
    const rows: unknown[] = await this.db.query(
      `INSERT INTO dutch_taker_checks (quote_id, chain_id, taker, token, spender, owed, balance, allowance, short, block_number, block_timestamp)
       VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11) ON CONFLICT (quote_id) DO NOTHING RETURNING quote_id`,
      [
        r.quote_id,
        r.chain_id,
        r.taker,
        r.token,
        r.spender,
        r.owed.toString(),
        r.balance.toString(),
        r.allowance.toString(),
        r.short,
        r.block_number.toString(),
        r.block_timestamp,
      ],
    );
    return rows.length > 0;
  }

  /** The end times (ms) of the scope's unfillable windows that ended after `sinceMs`, oldest first. */
  async windowEnds(scope: UnfillableScope, sinceMs: number): Promise<number[]> {
    const rows: { t: Date }[] =
      'taker' in scope
        ? await this.db.query(
            `SELECT exclusive_ends_at AS t FROM dutch_exclusive_outcomes
              WHERE taker_unfillable AND lower(taker) = lower($1) AND exclusive_ends_at > $2 ORDER BY t`,
            [scope.taker, new Date(sinceMs)],
          )
        : await this.db.query(
            `SELECT exclusive_ends_at AS t FROM dutch_exclusive_outcomes
              WHERE taker_unfillable AND taker_organization_id = $1 AND exclusive_ends_at > $2 ORDER BY t`,
            [scope.organizationId, new Date(sinceMs)],
          );
    return rows.map((r) => new Date(r.t).getTime());
  }
}
