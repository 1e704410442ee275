import type { Queryable } from '../platform/db';

/** A maker's indexed bond in one token: what the vault holds for it and what it asked to take out. */
export interface IndexedBond {
  balance: bigint;
  /** The amount of its latest withdrawal request not yet withdrawn (0: none). */
  pending: bigint;
}

/**
 * A maker's indexed bond per token, from the BondVault events the indexer wrote: the balance its
 * latest event carries, and the pending amount of its latest request unless a withdrawal came
 * after it. Absent tokens hold nothing.
 */
export async function indexedBonds(db: Queryable, chainId: number, maker: string, tokens: readonly string[]): Promise<Map<string, IndexedBond>> {
  const rows: { token: string; balance: string; pending: string }[] = await db.query(
    `SELECT t.token, COALESCE(b.balance, 0)::text AS balance,
            (CASE WHEN p.kind = 'request' THEN p.amount ELSE 0 END)::text AS pending
       FROM unnest($3::text[]) AS t(token)
       LEFT JOIN LATERAL (
         SELECT balance FROM indexer_bond_events
          WHERE chain_id = $1 AND maker = $2 AND token = t.token
          ORDER BY block_number DESC, log_index DESC LIMIT 1
       ) b ON true
       LEFT JOIN LATERAL (
         SELECT kind, amount FROM indexer_bond_events
          WHERE chain_id = $1 AND maker = $2 AND token = t.token AND kind IN ('request','withdraw')
          ORDER BY block_number DESC, log_index DESC LIMIT 1
       ) p ON true`,
    [chainId, maker, tokens],
  );
  return new Map(rows.map((r) => [r.token, { balance: BigInt(r.balance), pending: BigInt(r.pending) }]));
}

/**
 * Serialises the new rights of one maker wallet (exclusive fills, Dutch bids) until the caller's
 * transaction ends, so the bond reservation a right checks cannot be spent twice by concurrent
 * requests. A transaction-scoped advisory lock keyed by the wallet.
 */
export async function lockMakerRights(m: Queryable, maker: string): Promise<void> {
  await m.query(`SELECT pg_advisory_xact_lock(hashtextextended('maker-rights:' || lower($1), 0))`, [maker]);
}

/** Reserve the bond for live rights: `exceptQuote` is the auction being bid on now (a replaced bid is not a second right). */
export interface BondHolder {
  exceptQuote?: string | null;
}

/**
 * The live rights the maker wallet's bond already backs, per premium token (lower-case address):
 * its bids on Dutch auctions still competing (each could win), its awards whose exclusive window
 * has not ended (by the clock, and not decided by the indexer from the chain) and that are not filled, and its exclusive fills not expired (one per premium
 * token of its orders). Each reserves one fill bond of its token. The bond is the wallet's (the
 * BondVault holds it per wallet), so the rights counted against it are the wallet's own: a
 * member's right never eats another member's deposit.
 */
export async function liveRights(db: Queryable, chainId: number, maker: string, holder: BondHolder, tokens: readonly string[]): Promise<Map<string, number>> {
  const bidOf = `lower(b.maker) = lower($2)`;
  const fillOf = `lower(f.maker) = lower($2)`;
  const rows: { token: string; n: number }[] = await db.query(
    `WITH rights AS (
       SELECT lower(q.dutch_request->'dutch_premium'->>'token') AS token
         FROM dutch_bids b JOIN quotes q ON q.id = b.quote_id
        WHERE ${bidOf} AND q.chain_id = $1 AND q.id IS DISTINCT FROM $4::uuid AND q.state = 'open'
          AND (q.dutch_phase = 'competing' OR (q.winner IS NOT NULL AND lower(q.winner) = lower(b.maker) AND q.exclusive_ends_at > now()
               AND NOT EXISTS (SELECT 1 FROM dutch_exclusive_outcomes x WHERE x.quote_id = q.id)))
       UNION ALL
       SELECT DISTINCT ON (f.id, lower(o.premium_token)) lower(o.premium_token) AS token
         FROM exclusive_fills f JOIN orders o ON o.id = ANY(f.order_ids)
        WHERE ${fillOf} AND f.chain_id = $1 AND f.state = 'active' AND f.expire_time > now()
     )
     SELECT t.token, count(r.token)::int AS n FROM unnest($3::text[]) AS t(token) LEFT JOIN rights r ON r.token = lower(t.token) GROUP BY t.token`,
    [chainId, maker, tokens, holder.exceptQuote ?? null],
  );
  return new Map(rows.map((r) => [r.token.toLowerCase(), r.n]));
}
