import type { Hex } from '../rpc/rpc';
import type { RowPosition } from './rows';

/**
 * Rows the lending market and its oracle project (pure data, like rows.ts): prices as read,
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
