import { updatedRows as updated, type Queryable } from '../platform/db';
import { QUOTE_STATE_SQL as QS } from '../quotes';
import type { DutchPhase } from '../../wire/src/dutch.wire';
import { DUTCH_PHASE_SQL as DP } from './dutch.sql';

/**
 * The one owner of a Dutch quote's phase (`quotes.dutch_phase`, docs/DUTCH.md). A Dutch quote
 * is in quote state `open` through its auction and moves through phases while open; its state
 * (expire, cancel, fill, reopen) is shared/quotes/quote-state.ts's, as for any quote:
 *
 *                award (best bid)                open (exclusive window over)
 *   competing ─────────────────▶ exclusive ─────────────────────────────▶ open
 *       │                                                                  ▲
 *       └──────────────────── award (no bid) ──────────────────────────────┘
 *   any phase ──expire (auction over)──▶ expired;  any phase after competing ──fill──▶ filled
 *   filled ──reopen──▶ open in phase `exclusive` while the award's window lasts, else `open`; or expired
 *
 * Each transition is one statement guarded by the state and phase it leaves, so a retried job
 * changes nothing twice; each takes the caller's connection or transaction and returns what it
 * changed, so the caller publishes after its own commit.
 */

/** The ways into a phase: a Dutch quote is created `competing` (DutchRepository.create); the rest are the functions below. */
type PhaseTransition = 'create' | 'award' | 'open' | 'reopen';

/** A table with an entry for every phase of DUTCH_PHASES: a phase added to the list without one does not compile. */
type EveryPhase<T extends { [P in DutchPhase]: PhaseTransition }> = T;

/**
 * How a Dutch quote enters each phase (docs/ARCHITECTURE.md, "Add a Dutch phase"): the phases
 * each transition below may write are read from here.
 */
type DutchPhaseEntries = EveryPhase<{
  competing: 'create';
  exclusive: 'award' | 'reopen';
  open: 'award' | 'open' | 'reopen';
}>;

/** The phases `t` writes. */
type EnteredBy<T extends PhaseTransition> = { [P in DutchPhase]: T extends DutchPhaseEntries[P] ? P : never }[DutchPhase];

/** The phases an award enters: `exclusive` for a winner, `open` when no bid came. */
export type AwardedPhase = EnteredBy<'award'>;

/** What the auctioneer decided at the end of a competition. */
export interface DutchAwardDecision {
  /** The winning maker, or null when no bid came (the quote goes straight to `open`). */
  winner: `0x${string}` | null;
  exclusive_ends_at: Date | null;
  /** The public award (JSON of docs/DUTCH.md, with the auctioneer's signature). */
  award: { [key: string]: string | number };
}

/**
 * competing -> exclusive (a winner) | open (no bid). Returns the phase entered when this call
 * made the change, null when the quote was not competing (already awarded, closed or unknown).
 */
export async function awardDutchQuote(m: Queryable, id: string, d: DutchAwardDecision): Promise<AwardedPhase | null> {
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
): Promise<{ id: string; dutch_phase: AwardedPhase }[]> {
  if (decisions.length === 0) return [];
  return updated<{ id: string; dutch_phase: AwardedPhase }>(
    m,
    `UPDATE quotes q SET dutch_phase = d.phase, winner = d.winner, exclusive_ends_at = d.ends_at, award = d.award::jsonb,
            awarded_at = clock_timestamp(), opened_at = CASE WHEN d.phase = ${DP.open} THEN clock_timestamp() END
       FROM unnest($1::uuid[], $2::text[], $3::text[], $4::timestamptz[], $5::text[]) AS d(id, phase, winner, ends_at, award)
      WHERE q.id = d.id AND q.state = ${QS.open} AND q.dutch_phase = ${DP.competing} RETURNING q.id, q.dutch_phase`,
    [
      decisions.map((d) => d.id),
      decisions.map((d): AwardedPhase => (d.winner ? 'exclusive' : 'open')),
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
 * The phase a Dutch quote returns to when the settlement that filled it is rolled back:
 * `exclusive` while its award's window lasts (the chain still enforces it), else `open` (the
 * award stands, the competition is not rerun). Runs before reopenFilledQuotes of
 * shared/quotes/quote-state.ts, in the same transaction: it picks the quotes still `filled`.
 */
export async function reopenDutchPhases(m: Queryable, quoteIds: readonly string[]): Promise<void> {
  if (quoteIds.length === 0) return;
  await m.query(
    `UPDATE quotes q
        SET dutch_phase = CASE WHEN q.exclusive_ends_at > now() THEN ${DP.exclusive} ELSE ${DP.open} END
      WHERE q.id = ANY($1::uuid[]) AND q.state = ${QS.filled} AND q.dutch_phase IS NOT NULL`,
    [quoteIds],
  );
}
