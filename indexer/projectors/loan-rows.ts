import type { Hex } from '../rpc/rpc';
import type { RowCollector, RowPosition } from './changeset';

/**
 * Rows the lending market and its oracle project (pure, like changeset.ts): prices as read,
 * loans folded to their latest state per batch, and one loan event per log. Big integers are
 * decimal strings, addresses checksummed.
 */

export interface PriceRow extends RowPosition {
  oracle: Hex;
  token: Hex;
  price_wad: string;
  decimals: number;
}

export type LoanState = 'active' | 'repaid' | 'liquidated';
export type LoanEventKind = 'opened' | 'collateral_added' | 'collateral_withdrawn' | 'repaid' | 'liquidated';

export interface LoanRow {
  market: Hex;
  loan_id: string;
  borrower: Hex;
  lender: Hex;
  collateral_token: Hex;
  collateral_amount: string;
  debt_token: Hex;
  principal: string;
  principal_outstanding: string;
  interest_paid: string;
  rate_bps: number;
  threshold_bps: number;
  maturity: number;
  state: LoanState;
  opened_block: number;
  opened_block_hash: Hex;
  opened_log_index: number;
  opened_at: number;
  tx_hash: Hex;
  last_block: number;
  last_log_index: number;
  closed_at: number | null;
}

/** One log's change of a loan: the totals after it (null: unchanged) and the interest it paid. */
export interface LoanChange {
  market: Hex;
  loan_id: string;
  collateral_amount: string | null;
  principal_outstanding: string | null;
  interest_paid: string;
  state: LoanState;
  last_block: number;
  last_log_index: number;
  closed_at: number | null;
}

/** A loan opened older than the batch, as the batch leaves it; `interest_paid` is what the batch adds. */
export type LoanUpdate = LoanChange;

export type LoanProjection = { opened: LoanRow } | { change: LoanChange };

export interface LoanBatch {
  opened: LoanRow[];
  updates: LoanUpdate[];
}

export interface LoanEventRow extends RowPosition {
  market: Hex;
  loan_id: string;
  kind: LoanEventKind;
  actor: Hex;
  /** The loan's parties and tokens: known from the log for an opening, filled from the loan otherwise. */
  borrower: Hex | null;
  lender: Hex | null;
  collateral_token: Hex | null;
  debt_token: Hex | null;
  collateral_delta: string;
  collateral_after: string | null;
  principal_delta: string;
  principal_after: string | null;
  interest_paid: string;
}

/**
 * Folds a batch's loan changes: a loan opened in the batch is written once in the state its later
 * events leave it; an older loan gets one update, its interest summed.
 */
export function finalLoanStates(): RowCollector<LoanProjection, LoanBatch> {
  const opened = new Map<string, LoanRow>();
  const updated = new Map<string, LoanUpdate>();
  const apply = (row: LoanRow | LoanUpdate, c: LoanChange) => {
    if (c.collateral_amount !== null) row.collateral_amount = c.collateral_amount;
    if (c.principal_outstanding !== null) row.principal_outstanding = c.principal_outstanding;
    row.interest_paid = (BigInt(row.interest_paid) + BigInt(c.interest_paid)).toString();
    row.state = c.state;
    row.last_block = c.last_block;
    row.last_log_index = c.last_log_index;
    row.closed_at = c.closed_at;
  };
  return {
    add(p) {
      if ('opened' in p) {
        opened.set(`${p.opened.market}|${p.opened.loan_id}`, { ...p.opened });
        return;
      }
      const key = `${p.change.market}|${p.change.loan_id}`;
      const row = opened.get(key) ?? updated.get(key);
      if (row) apply(row, p.change);
      else updated.set(key, { ...p.change });
    },
    done: () => ({ opened: [...opened.values()], updates: [...updated.values()] }),
  };
}

/** Loan events one per log, each completed with its loan's parties when the batch opened it. */
export function loanEventsWithParties(): RowCollector<LoanEventRow, LoanEventRow[]> {
  const rows: LoanEventRow[] = [];
  const parties = new Map<string, Pick<LoanEventRow, 'borrower' | 'lender' | 'collateral_token' | 'debt_token'>>();
  return {
    add(row) {
      const key = `${row.market}|${row.loan_id}`;
      if (row.kind === 'opened')
        parties.set(key, { borrower: row.borrower, lender: row.lender, collateral_token: row.collateral_token, debt_token: row.debt_token });
      const known = row.borrower === null ? parties.get(key) : undefined;
      rows.push(known ? { ...row, ...known } : row);
    },
    done: () => rows,
  };
}
