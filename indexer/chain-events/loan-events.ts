import {
  collateralAddedEvent,
  collateralWithdrawnEvent,
  loanLiquidatedEvent,
  loanOpenedEvent,
  loanRepaidEvent,
  priceUpdatedEvent,
} from '../../shared/chain/abis';
import { expectShape, topicAddress, uint, word, wordAddress } from '../decode/log-words';
import type { Hex } from '../rpc/rpc';
import type { ProjectedRow } from '../store/derived-tables';
import type { LoanChange, LoanEventRow, RowPosition } from '../types';
import { eventTable, indexedEvent } from './indexed-event';

/** A loan event row of an older loan: its parties come from the loan when written (null here). */
const loanEvent = (
  market: Hex,
  loanId: bigint,
  at: RowPosition,
  e: Pick<LoanEventRow, 'kind' | 'actor' | 'collateral_delta' | 'collateral_after' | 'principal_delta' | 'principal_after' | 'interest_paid'>,
): ProjectedRow => ({
  table: 'indexer_loan_events',
  row: { ...at, market, loan_id: loanId.toString(), borrower: null, lender: null, collateral_token: null, debt_token: null, ...e },
});

/** A change of a loan's state by one of its events. */
const loanChange = (
  market: Hex,
  loanId: bigint,
  at: RowPosition,
  c: Pick<LoanChange, 'collateral_amount' | 'principal_outstanding' | 'interest_paid' | 'state'>,
): ProjectedRow => ({
  table: 'indexer_loans',
  row: {
    change: {
      market,
      loan_id: loanId.toString(),
      ...c,
      last_block: at.block_number,
      last_log_index: at.log_index,
      closed_at: c.state === 'active' ? null : at.block_timestamp,
    },
  },
});
/** The lending market's events and its price oracle's: loans opened, changed and closed, and token prices (docs/LOANS.md). */
export const LOAN_EVENTS = eventTable({
  /**
   * PriceOracle: the USD value of one whole token (18 decimals). The health of the active loans
   * of that token is recomputed by the loans' write; the loans' rollback recomputes it again from
   * the prices that survive (it reads which tokens the prices' rollback removed), so a price's
   * rollback needs only its own table here.
   */
  PriceUpdated: indexedEvent({
    abi: priceUpdatedEvent,
    emitter: 'price_oracle',
    tables: ['indexer_prices'],
    decode(log) {
      expectShape(log, 2, 2, 'PriceUpdated');
      return { token: topicAddress(log.topics[1]), priceWad: uint(word(log.data, 0)), decimals: Number(uint(word(log.data, 1))) };
    },
    project: (log, at) => [
      { table: 'indexer_prices', row: { ...at, oracle: log.meta.address, token: log.token, price_wad: log.priceWad.toString(), decimals: log.decimals } },
    ],
  }),

  /** LendingMarket: a loan exists, with every term. */
  LoanOpened: indexedEvent({
    abi: loanOpenedEvent,
    emitter: 'lending_market',
    tables: ['indexer_loans', 'indexer_loan_events', 'indexer_loan_token_totals'],
    decode(log) {
      expectShape(log, 4, 7, 'LoanOpened');
      const t = log.topics;
      const d = log.data;
      return {
        loanId: uint(t[1]),
        borrower: topicAddress(t[2]),
        lender: topicAddress(t[3]),
        collateralToken: wordAddress(word(d, 0)),
        collateralAmount: uint(word(d, 1)),
        debtToken: wordAddress(word(d, 2)),
        principal: uint(word(d, 3)),
        rateBps: Number(uint(word(d, 4))),
        liquidationThresholdBps: Number(uint(word(d, 5))),
        maturity: Number(uint(word(d, 6))),
      };
    },
    project: (log, at) => [
      {
        table: 'indexer_loans',
        row: {
          opened: {
            market: log.meta.address,
            loan_id: log.loanId.toString(),
            borrower: log.borrower,
            lender: log.lender,
            collateral_token: log.collateralToken,
            collateral_amount: log.collateralAmount.toString(),
            debt_token: log.debtToken,
            principal: log.principal.toString(),
            principal_outstanding: log.principal.toString(),
            interest_paid: '0',
            rate_bps: log.rateBps,
            threshold_bps: log.liquidationThresholdBps,
            maturity: log.maturity,
            state: 'active',
            opened_block: at.block_number,
            opened_block_hash: at.block_hash,
            opened_log_index: at.log_index,
            opened_at: at.block_timestamp,
            tx_hash: at.tx_hash,
            last_block: at.block_number,
            last_log_index: at.log_index,
            closed_at: null,
          },
        },
      },
      {
        table: 'indexer_loan_events',
        row: {
          ...at,
          market: log.meta.address,
          loan_id: log.loanId.toString(),
          kind: 'opened',
          actor: log.borrower,
          borrower: log.borrower,
          lender: log.lender,
          collateral_token: log.collateralToken,
          debt_token: log.debtToken,
          collateral_delta: log.collateralAmount.toString(),
          collateral_after: log.collateralAmount.toString(),
          principal_delta: log.principal.toString(),
          principal_after: log.principal.toString(),
          interest_paid: '0',
        },
      },
    ],
  }),

  /** LendingMarket: collateral topped up; `collateral` is the new total. */
  CollateralAdded: indexedEvent({
    abi: collateralAddedEvent,
    emitter: 'lending_market',
    tables: ['indexer_loans', 'indexer_loan_events', 'indexer_loan_token_totals'],
    decode(log) {
      expectShape(log, 3, 2, 'CollateralAdded');
      return { loanId: uint(log.topics[1]), from: topicAddress(log.topics[2]), amount: uint(word(log.data, 0)), collateral: uint(word(log.data, 1)) };
    },
    project: (log, at) => [
      loanChange(log.meta.address, log.loanId, at, {
        collateral_amount: log.collateral.toString(),
        principal_outstanding: null,
        interest_paid: '0',
        state: 'active',
      }),
      loanEvent(log.meta.address, log.loanId, at, {
        kind: 'collateral_added',
        actor: log.from,
        collateral_delta: log.amount.toString(),
        collateral_after: log.collateral.toString(),
        principal_delta: '0',
        principal_after: null,
        interest_paid: '0',
      }),
    ],
  }),

  /**
   * LendingMarket: collateral taken back; `collateral` is what is left. A full repayment returns
   * the rest with this event after its LoanRepaid, which already closed the loan.
   */
  CollateralWithdrawn: indexedEvent({
    abi: collateralWithdrawnEvent,
    emitter: 'lending_market',
    tables: ['indexer_loans', 'indexer_loan_events', 'indexer_loan_token_totals'],
    decode(log) {
      expectShape(log, 3, 2, 'CollateralWithdrawn');
      return { loanId: uint(log.topics[1]), to: topicAddress(log.topics[2]), amount: uint(word(log.data, 0)), collateral: uint(word(log.data, 1)) };
    },
    project: (log, at) => [
      loanChange(log.meta.address, log.loanId, at, {
        collateral_amount: log.collateral.toString(),
        principal_outstanding: null,
        interest_paid: '0',
        // Only a closing repayment empties the collateral (a withdrawal must leave the loan healthy).
        state: log.collateral === 0n ? 'repaid' : 'active',
      }),
      loanEvent(log.meta.address, log.loanId, at, {
        kind: 'collateral_withdrawn',
        actor: log.to,
        collateral_delta: (-log.amount).toString(),
        collateral_after: log.collateral.toString(),
        principal_delta: '0',
        principal_after: null,
        interest_paid: '0',
      }),
    ],
  }),

  /** LendingMarket: a repayment, interest first; nothing remaining closes the loan. */
  LoanRepaid: indexedEvent({
    abi: loanRepaidEvent,
    emitter: 'lending_market',
    tables: ['indexer_loans', 'indexer_loan_events', 'indexer_loan_token_totals'],
    decode(log) {
      expectShape(log, 3, 3, 'LoanRepaid');
      const d = log.data;
      return {
        loanId: uint(log.topics[1]),
        payer: topicAddress(log.topics[2]),
        principalPaid: uint(word(d, 0)),
        interestPaid: uint(word(d, 1)),
        principalRemaining: uint(word(d, 2)),
      };
    },
    project: (log, at) => [
      loanChange(log.meta.address, log.loanId, at, {
        collateral_amount: null,
        principal_outstanding: log.principalRemaining.toString(),
        interest_paid: log.interestPaid.toString(),
        state: log.principalRemaining === 0n ? 'repaid' : 'active',
      }),
      loanEvent(log.meta.address, log.loanId, at, {
        kind: 'repaid',
        actor: log.payer,
        collateral_delta: '0',
        collateral_after: null,
        principal_delta: (-log.principalPaid).toString(),
        principal_after: log.principalRemaining.toString(),
        interest_paid: log.interestPaid.toString(),
      }),
    ],
  }),

  /** LendingMarket: an unhealthy or overdue loan's debt repaid by a liquidator, who took the collateral. */
  LoanLiquidated: indexedEvent({
    abi: loanLiquidatedEvent,
    emitter: 'lending_market',
    tables: ['indexer_loans', 'indexer_loan_events', 'indexer_loan_token_totals'],
    decode(log) {
      expectShape(log, 3, 3, 'LoanLiquidated');
      const d = log.data;
      return {
        loanId: uint(log.topics[1]),
        liquidator: topicAddress(log.topics[2]),
        principalRepaid: uint(word(d, 0)),
        interestRepaid: uint(word(d, 1)),
        collateralSeized: uint(word(d, 2)),
      };
    },
    project: (log, at) => [
      loanChange(log.meta.address, log.loanId, at, {
        collateral_amount: '0',
        principal_outstanding: '0',
        interest_paid: log.interestRepaid.toString(),
        state: 'liquidated',
      }),
      loanEvent(log.meta.address, log.loanId, at, {
        kind: 'liquidated',
        actor: log.liquidator,
        collateral_delta: (-log.collateralSeized).toString(),
        collateral_after: '0',
        principal_delta: (-log.principalRepaid).toString(),
        principal_after: '0',
        interest_paid: log.interestRepaid.toString(),
      }),
    ],
  }),
});
