import { formatWad, healthWad, isAtRisk, valueWad, WAD, type TokenPrice } from './health';
import type { LoanEventRecord, LoanRecord, PriceRecord } from './loan.repository';
import { CHAIN_ID, UINT256_MAX } from '../platform/validation';

/**
 * The shapes Explore answers with and the loan stream pushes (documented in the route specs
 * and docs/LOANS.md). Amounts are raw token units as decimal strings; `*_usd` values and health
 * factors are decimal strings from 18-decimal fixed point; times ISO 8601 UTC.
 */

/** A loan's public id: its network and its id on that network's market ("31337-7"). */
export const loanPublicId = (chainId: number, loanId: string) => `${chainId}-${loanId}`;

/** Parses a public loan id; null when it is not one, or names a chain id or loan id past its column (integer, uint256). */
export function parseLoanId(id: string): { chain_id: number; loan_id: string } | null {
  const m = /^([1-9][0-9]{0,9})-([0-9]{1,78})$/.exec(id);
  if (!m || Number(m[1]) > CHAIN_ID.max || BigInt(m[2]) > UINT256_MAX) return null;
  return { chain_id: Number(m[1]), loan_id: BigInt(m[2]).toString() };
}

export const isoFromUnix = (s: string | number) => new Date(Number(s) * 1000).toISOString();

/** Prices and token metadata a page of views needs, keyed by lower-case address. */
export interface ValuationContext {
  prices: Map<string, TokenPrice>;
  tokens: Map<string, { symbol: string; decimals: number }>;
  /** Unix seconds: what "overdue" is measured against. */
  now: number;
}

const usd = (amount: bigint, p: TokenPrice | undefined) => (p ? formatWad(valueWad(amount, p)) : null);

function tokenRef(ctx: ValuationContext, address: string) {
  const t = ctx.tokens.get(address.toLowerCase());
  const p = ctx.prices.get(address.toLowerCase());
  return { address, symbol: t?.symbol ?? null, decimals: t?.decimals ?? p?.decimals ?? null, price_usd: p ? formatWad(p.price_wad) : null };
}

export function loanView(r: LoanRecord, ctx: ValuationContext) {
  const cp = ctx.prices.get(r.collateral_token.toLowerCase());
  const dp = ctx.prices.get(r.debt_token.toLowerCase());
  const stored = r.health_wad === null ? null : BigInt(r.health_wad);
  // The stored health follows every indexed price; recomputed here only when it is missing for an active loan.
  const health =
    r.state === 'active'
      ? (stored ??
        healthWad(
          { collateral_amount: BigInt(r.collateral_amount), principal_outstanding: BigInt(r.principal_outstanding), threshold_bps: r.threshold_bps },
          cp,
          dp,
        ))
      : null;
  const overdue = r.state === 'active' && Number(r.maturity) < ctx.now;
  return {
    id: loanPublicId(r.chain_id, r.loan_id),
    chain_id: r.chain_id,
    market: r.market,
    loan_id: r.loan_id,
    state: r.state,
    borrower: r.borrower,
    lender: r.lender,
    collateral: { token: tokenRef(ctx, r.collateral_token), amount: r.collateral_amount, value_usd: usd(BigInt(r.collateral_amount), cp) },
    debt: {
      token: tokenRef(ctx, r.debt_token),
      principal: r.principal,
      outstanding: r.principal_outstanding,
      interest_paid: r.interest_paid,
      outstanding_value_usd: usd(BigInt(r.principal_outstanding), dp),
    },
    rate_bps: r.rate_bps,
    liquidation_threshold_bps: r.threshold_bps,
    health_factor: formatWad(health),
    at_risk: isAtRisk(health),
    liquidatable: r.state === 'active' && ((health !== null && health < WAD) || overdue),
    overdue,
    maturity: isoFromUnix(r.maturity),
    opened_at: isoFromUnix(r.opened_at),
    opened_block: Number(r.opened_block),
    opened_tx_hash: r.tx_hash,
    closed_at: r.closed_at === null ? null : isoFromUnix(r.closed_at),
    updated_block: Number(r.last_block),
  };
}

export type LoanView = ReturnType<typeof loanView>;

export function loanEventView(e: LoanEventRecord) {
  return {
    chain_id: e.chain_id,
    loan: loanPublicId(e.chain_id, e.loan_id),
    loan_id: e.loan_id,
    market: e.market,
    kind: e.kind,
    actor: e.actor,
    borrower: e.borrower,
    lender: e.lender,
    collateral_token: e.collateral_token,
    debt_token: e.debt_token,
    collateral_delta: e.collateral_delta,
    collateral_after: e.collateral_after,
    principal_delta: e.principal_delta,
    principal_after: e.principal_after,
    interest_paid: e.interest_paid,
    block_number: Number(e.block_number),
    block_hash: e.block_hash,
    log_index: e.log_index,
    tx_hash: e.tx_hash,
    at: isoFromUnix(e.block_timestamp),
  };
}

export type LoanEventView = ReturnType<typeof loanEventView>;

export function priceUpdateView(p: PriceRecord) {
  return {
    chain_id: p.chain_id,
    oracle: p.oracle,
    token: p.token,
    price_wad: p.price_wad,
    price_usd: formatWad(BigInt(p.price_wad)) as string,
    decimals: p.decimals,
    block_number: Number(p.block_number),
    block_hash: p.block_hash,
    log_index: p.log_index,
    tx_hash: p.tx_hash,
    at: isoFromUnix(p.block_timestamp),
  };
}

export type PriceUpdateView = ReturnType<typeof priceUpdateView>;
