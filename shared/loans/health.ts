/**
 * A loan's health factor, as the reference lending market defines it (docs/PROTOCOL.md):
 * collateral value x liquidation threshold / debt value, 18 decimals. Below 1 (WAD) the loan
 * may be liquidated; below LOAN_AT_RISK_HEALTH_WAD Explore calls it at risk. The indexer
 * values debt as the outstanding principal (interest accrues by the second on chain and is
 * settled on every repayment), so its figure is the contract's plus the interest not yet paid.
 */
export const WAD = 10n ** 18n;

/** Explore's at-risk line: health below 1.1. Crossing it (either way) is an `explore_loan_event`. */
export const LOAN_AT_RISK_HEALTH_WAD = 1_100_000_000_000_000_000n;

/** A token's latest oracle price: USD value of one whole token, 18 decimals. */
export interface TokenPrice {
  price_wad: bigint;
  decimals: number;
}

/** USD value (18 decimals) of `amount` raw units of a token. */
export const valueWad = (amount: bigint, p: TokenPrice): bigint => (amount * p.price_wad) / 10n ** BigInt(p.decimals);

/**
 * The health factor (18 decimals, floored) of collateral against outstanding principal; null
 * when nothing is owed or a price is missing. One division, so it matches the indexer's SQL.
 */
export function healthWad(
  loan: { collateral_amount: bigint; principal_outstanding: bigint; threshold_bps: number },
  collateral?: TokenPrice,
  debt?: TokenPrice,
): bigint | null {
  if (loan.principal_outstanding === 0n || !collateral || !debt) return null;
  const num = loan.collateral_amount * collateral.price_wad * 10n ** BigInt(debt.decimals) * BigInt(loan.threshold_bps) * WAD;
  const den = 10n ** BigInt(collateral.decimals) * 10_000n * loan.principal_outstanding * debt.price_wad;
  return num / den;
}

/** Whether a health factor is below the at-risk line (an unknown health is not at risk). */
export const isAtRisk = (h: bigint | null): boolean => h !== null && h < LOAN_AT_RISK_HEALTH_WAD;

/** A health factor as a decimal string with up to 18 places ("1.25"); null stays null. */
export function formatWad(w: bigint): string;
export function formatWad(w: bigint | null): string | null;
export function formatWad(w: bigint | null): string | null {
  if (w === null) return null;
  const whole = w / WAD;
  const frac = (w % WAD).toString().padStart(18, '0').replace(/0+$/, '');
  return frac ? `${whole}.${frac}` : whole.toString();
}

/** A decimal string ("1.25") as 18-decimal fixed point; throws on anything else. */
export function parseWad(s: string): bigint {
  const m = /^(\d{1,30})(?:\.(\d{1,18}))?$/.exec(s);
  if (!m) throw new Error(`not a decimal: ${s}`);
  return BigInt(m[1]) * WAD + BigInt((m[2] ?? '').padEnd(18, '0'));
}
