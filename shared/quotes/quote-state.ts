import type { EntityManager } from 'typeorm';
import { QUOTE_COLUMNS } from './quote.repository';
import type { QuoteRow, QuoteState } from './quote.types';
import { DUTCH_PHASE_SQL as DP, QUOTE_STATE_SQL as QS, type DutchPhase } from '../../wire/src/quote.wire';

/**
 * The one owner of a quote's state: every write of `quotes.state` is in this file, and a test
 * fails when one appears anywhere else.
 *
 *              expire (window over)
 *      open ───────────────────────────▶ expired
 *       │  │    cancel                      │
 *       │  └──────────────────▶ cancelled   │ fill (a settlement seen late: the chain is the record)
 *       │ fill (settlement seen)            ▼
 *       └──────────────────────────────▶ filled ──reopen (settlement rolled back)──▶ open | expired
 *
 * A Dutch quote (offer_format dutch_only, docs/DUTCH.md) is `open` through its auction and
 * moves through phases while open; the same closes, fills and reopenings apply to it:
 *
 *                award (best bid)                open (exclusive window over)
 *   competing ─────────────────▶ exclusive ─────────────────────────────▶ open
 *       │                                                                  ▲
 *       └──────────────────── award (no bid) ──────────────────────────────┘
 *   any phase ──expire (auction over)──▶ expired;  any phase after competing ──fill──▶ filled
 *   filled ──reopen──▶ open in phase `exclusive` while the award's window lasts, else `open`; or expired
 *
 * Each transition is one statement guarded by the state it leaves, so a retried job or a block
 * applied twice changes nothing twice. Each takes the caller's connection or transaction (the
 * indexer moves quotes in the same transaction as the rows that justify it) and returns what
 * it changed, so the caller publishes after its own commit.
 */

type Queryable = Pick<EntityManager, 'query'>;

/** States a quote leaves `open` for without the chain: by its clock, or by its owner. */
export type ClosingState = Extract<QuoteState, 'expired' | 'cancelled'>;

/** A quote a settlement filled. */
export interface FilledQuoteRow {
  quote_id: string;
  taker_address_hash: `0x${string}`;
  stream_token_hash: string;
  /** When the fill was recorded (ms, decimal string): a fill re-derived after a rollback is news again. */
  filled_at_ms: string;
}

/** A quote whose fill was rolled back, in the state it is in again. */
export interface ReopenedQuoteRow {
  quote_id: string;
  state: Extract<QuoteState, 'open' | 'expired'>;
  stream_token_hash: string;
  taker_address_hash: `0x${string}`;
}

/** The Dutch phases of an open Dutch quote: the list DUTCH_PHASES in quote.wire.ts. */
export type { DutchPhase };

/** What the auctioneer decided at the end of a competition. */
export interface DutchAwardDecision {
  /** The winning maker, or null when no bid came (the quote goes straight to `open`). */
  winner: `0x${string}` | null;
  exclusive_ends_at: Date | null;
  /** The public award (JSON of docs/DUTCH.md, with the auctioneer's signature). */
  award: { [key: string]: string | number };
}

/** What a settlement carries to find its quote. */
export interface SettlementRef {
  taker_address_hash: string;
  tx_hash: string;
}

/** TypeORM answers an UPDATE ... RETURNING with `[rows, affected]`. */
async function updated<T>(m: Queryable, sql: string, params: unknown[]): Promise<T[]> {
  const res: [T[], number] = await m.query(sql, params);
  return res[0];
}

/**
 * open -> `to`. Returns the row when this call made the change, null when the quote was not
 * open (already closed, or unknown), so a retried job does not act twice.
 */
export async function closeQuote(m: Queryable, id: string, to: ClosingState): Promise<QuoteRow | null> {
  const rows = await updated<QuoteRow>(m, `UPDATE quotes SET state = $2, closed_at = now() WHERE id = $1 AND state = ${QS.open} RETURNING ${QUOTE_COLUMNS}`, [
    id,
    to,
  ]);
  return rows[0] ?? null;
}

/**
 * competing -> exclusive (a winner) | open (no bid). Returns the phase entered when this call
 * made the change, null when the quote was not competing (already awarded, closed or unknown).
 */
export async function awardDutchQuote(m: Queryable, id: string, d: DutchAwardDecision): Promise<DutchPhase | null> {
  const [row] = await awardDutchQuotes(m, [{ ...d, id }]);
  return row?.dutch_phase ?? null;
}

/**
 * The same transition for a batch of quotes, in one statement: each quote still competing
 * enters its phase; one no longer competing (a concurrent run or the sweeper got there first)
 * is left out of the answer, so the caller publishes only what this call changed.
 */
export async function awardDutchQuotes(
  m: Queryable,
  decisions: readonly (DutchAwardDecision & { id: string })[],
): Promise<{ id: string; dutch_phase: DutchPhase }[]> {
  if (decisions.length === 0) return [];
  return updated<{ id: string; dutch_phase: DutchPhase }>(
    m,
    `UPDATE quotes q SET dutch_phase = d.phase, winner = d.winner, exclusive_ends_at = d.ends_at, award = d.award::jsonb,
            awarded_at = clock_timestamp(), opened_at = CASE WHEN d.phase = ${DP.open} THEN clock_timestamp() END
       FROM unnest($1::uuid[], $2::text[], $3::text[], $4::timestamptz[], $5::text[]) AS d(id, phase, winner, ends_at, award)
      WHERE q.id = d.id AND q.state = ${QS.open} AND q.dutch_phase = ${DP.competing} RETURNING q.id, q.dutch_phase`,
    [
      decisions.map((d) => d.id),
      decisions.map((d): DutchPhase => (d.winner ? 'exclusive' : 'open')),
      decisions.map((d) => d.winner),
      decisions.map((d) => d.exclusive_ends_at),
      decisions.map((d) => JSON.stringify(d.award)),
    ],
  );
}

/** exclusive -> open. True when this call made the change. */
export async function openDutchQuote(m: Queryable, id: string): Promise<boolean> {
  return (await openDutchQuotes(m, id, new Date(0), 0)).includes(id);
}

/**
 * exclusive -> open for quote `id` (if any) and up to `limit` others whose window ended by `now`, in one
 * statement. Rows another run holds are skipped, not waited for (that run decides them); the
 * answer is the ids this call opened.
 */
export async function openDutchQuotes(m: Queryable, id: string | null, now: Date, limit: number): Promise<string[]> {
  const rows = await updated<{ id: string }>(
    m,
    // The pick is materialized: a LIMIT subquery inside IN may be rescanned and pick more rows.
    `WITH picked AS MATERIALIZED (
       SELECT id FROM quotes WHERE state = ${QS.open} AND dutch_phase = ${DP.exclusive} AND (id = $1 OR exclusive_ends_at <= $2)
        ORDER BY id = $1 DESC, exclusive_ends_at LIMIT $3 FOR UPDATE SKIP LOCKED)
     UPDATE quotes q SET dutch_phase = ${DP.open}, opened_at = clock_timestamp() FROM picked
      WHERE q.id = picked.id AND q.state = ${QS.open} AND q.dutch_phase = ${DP.exclusive} RETURNING q.id`,
    [id, now, limit + 1],
  );
  return rows.map((r) => r.id);
}

/**
 * open | expired -> filled, for the quotes of `chainId` these settlements pay (matched by the
 * taker hash they carry, or for a Dutch fill by its request digest). An `expired` quote is filled too: an offer's deadline lies within its
 * quote's window, so a settlement seen after the expiry job ran happened in time and the reader
 * of the chain was merely behind.
 */
export async function fillSettledQuotes(m: Queryable, chainId: number, settlements: readonly SettlementRef[]): Promise<FilledQuoteRow[]> {
  if (settlements.length === 0) return [];
  return updated<FilledQuoteRow>(
    m,
    `UPDATE quotes q SET state = ${QS.filled}, closed_at = now(), fill_tx_hash = s.tx_hash
       FROM unnest($2::text[], $3::text[]) AS s(taker_address_hash, tx_hash)
      WHERE q.chain_id = $1 AND q.taker_address_hash = s.taker_address_hash AND q.state IN (${QS.open}, ${QS.expired})
      RETURNING q.id AS quote_id, q.taker_address_hash, q.stream_token_hash, (extract(epoch FROM q.closed_at) * 1000)::bigint::text AS filled_at_ms`,
    [chainId, settlements.map((s) => s.taker_address_hash), settlements.map((s) => s.tx_hash)],
  ).then(async (standard) => [...standard, ...(await fillDutchQuotes(m, chainId, settlements))]);
}

/**
 * A Dutch fill's event carries its request digest (in the settlement's hash column): the quote
 * holding that digest is filled, in whatever phase. `taker_address_hash` of the answer is the
 * digest matched, as the caller pairs answers with settlements by it.
 */
function fillDutchQuotes(m: Queryable, chainId: number, settlements: readonly SettlementRef[]): Promise<FilledQuoteRow[]> {
  return updated<FilledQuoteRow>(
    m,
    `UPDATE quotes q SET state = ${QS.filled}, closed_at = now(), fill_tx_hash = s.tx_hash
       FROM unnest($2::text[], $3::text[]) AS s(digest, tx_hash)
      WHERE q.chain_id = $1 AND q.offer_format = 'dutch_only' AND q.dutch_request_digest = s.digest AND q.state IN (${QS.open}, ${QS.expired})
      RETURNING q.id AS quote_id, q.dutch_request_digest AS taker_address_hash, q.stream_token_hash, (extract(epoch FROM q.closed_at) * 1000)::bigint::text AS filled_at_ms`,
    [chainId, settlements.map((s) => s.taker_address_hash), settlements.map((s) => s.tx_hash)],
  );
}

/**
 * filled -> open while the window lasts, else expired: the settlements that filled these quotes
 * were rolled back. A Dutch quote returns to `exclusive` while its award's window lasts (the
 * chain still enforces it), else to `open`: the award stands, the competition is not rerun.
 */
export async function reopenFilledQuotes(m: Queryable, quoteIds: readonly string[]): Promise<ReopenedQuoteRow[]> {
  if (quoteIds.length === 0) return [];
  return updated<ReopenedQuoteRow>(
    m,
    `UPDATE quotes q
        SET state = CASE WHEN q.expires_at > now() THEN ${QS.open} ELSE ${QS.expired} END,
            closed_at = CASE WHEN q.expires_at > now() THEN NULL ELSE now() END,
            fill_tx_hash = NULL,
            dutch_phase = CASE WHEN q.dutch_phase IS NULL THEN NULL
                               WHEN q.exclusive_ends_at > now() THEN ${DP.exclusive} ELSE ${DP.open} END
      WHERE q.id = ANY($1::uuid[]) AND q.state = ${QS.filled}
      RETURNING q.id AS quote_id, q.state, q.stream_token_hash, q.taker_address_hash`,
    [quoteIds],
  );
}
