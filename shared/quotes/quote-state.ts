import { updatedRows as updated, type Queryable } from '../platform/db';
import { QUOTE_COLUMNS } from './quote.repository';
import type { QuoteRow, QuoteState } from './quote.types';
import { QUOTE_STATE_SQL as QS } from './quote.sql';

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
 * A Dutch quote (offer_format dutch_only, docs/DUTCH.md) is `open` through its auction; the same
 * closes, fills (matched by its request digest) and reopenings apply to it. Its phase
 * (`dutch_phase`) is not a state: shared/dutch/dutch-state.ts owns every write of it, including
 * the phase a reopened Dutch quote returns to, and this module knows no phase.
 *
 * Each transition is one statement guarded by the state it leaves, so a retried job or a block
 * applied twice changes nothing twice. Each takes the caller's connection or transaction (the
 * indexer moves quotes in the same transaction as the rows that justify it) and returns what
 * it changed, so the caller publishes after its own commit.
 */

/** The ways into a state: a new quote is `open` by the column's default (`create`); the rest are the functions below. */
type QuoteTransition = 'create' | 'close' | 'fill' | 'reopen';

/** A table with an entry for every state of QUOTE_STATES: a state added to the list without one does not compile. */
type EveryState<T extends { [S in QuoteState]: QuoteTransition }> = T;

/**
 * How a quote enters each of its states (docs/ARCHITECTURE.md, "Add a quote state"): the
 * states each transition below may write are read from here.
 */
type QuoteStateEntries = EveryState<{
  open: 'create' | 'reopen';
  expired: 'close' | 'reopen';
  filled: 'fill';
  cancelled: 'close';
}>;

/** The states `t` writes. */
type EnteredBy<T extends QuoteTransition> = { [S in QuoteState]: T extends QuoteStateEntries[S] ? S : never }[QuoteState];

/** States a quote leaves `open` for without the chain: by its clock, or by its owner. */
export type ClosingState = EnteredBy<'close'>;

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
  state: EnteredBy<'reopen'>;
  stream_token_hash: string;
  taker_address_hash: `0x${string}`;
}

/** What a settlement carries to find its quote. */
export interface SettlementRef {
  taker_address_hash: string;
  tx_hash: string;
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
 * were rolled back. A Dutch quote's phase is set back first, by reopenDutchPhases
 * (shared/dutch/dutch-state.ts), in the same transaction.
 */
export async function reopenFilledQuotes(m: Queryable, quoteIds: readonly string[]): Promise<ReopenedQuoteRow[]> {
  if (quoteIds.length === 0) return [];
  return updated<ReopenedQuoteRow>(
    m,
    `UPDATE quotes q
        SET state = CASE WHEN q.expires_at > now() THEN ${QS.open} ELSE ${QS.expired} END,
            closed_at = CASE WHEN q.expires_at > now() THEN NULL ELSE now() END,
            fill_tx_hash = NULL
      WHERE q.id = ANY($1::uuid[]) AND q.state = ${QS.filled}
      RETURNING q.id AS quote_id, q.state, q.stream_token_hash, q.taker_address_hash`,
    [quoteIds],
  );
}

/**
 * open -> expired, in one statement, for up to `limit` open standard quotes whose window ended by
 * `now` and that were announced (the expiry clock, workers/quotes/quote-expiry-clock.ts; an
 * unannounced one is announced before it closes, one at a time). Rows another replica is closing
 * are skipped, not waited for. Answers the ids this statement closed: their results are the
 * caller's to publish.
 */
export async function expireDueQuotes(m: Queryable, now: Date, limit: number): Promise<string[]> {
  const rows = await updated<{ id: string }>(
    m,
    `UPDATE quotes SET state = ${QS.expired}, closed_at = now()
      WHERE id IN (SELECT id FROM quotes
                    WHERE state = ${QS.open} AND offer_format = 'package_only' AND expires_at <= $1 AND announced_at IS NOT NULL
                    ORDER BY expires_at LIMIT $2 FOR UPDATE SKIP LOCKED)
        AND state = ${QS.open}
      RETURNING id`,
    [now, limit],
  );
  return rows.map((r) => r.id);
}
