import type { DutchPremium } from './typed-data';

/** Basis points in one: a bid of 10,000 bps would be the whole premium. */
export const BPS = 10_000n;

/**
 * The Dutch premium at unix second `at` (the contract's DutchCurve.premiumAt, exactly):
 * `startPremium` until `auctionStart`, `endPremium` from `auctionEnd` on; in between a move
 * from start toward end of `decayRate` units per second capped at the end premium, or, with
 * `decayRate` 0, the straight line between the two, rounded toward the start premium.
 */
export function dutchPremiumAt(p: DutchPremium, auctionEnd: number, at: number): bigint {
  if (at <= p.auctionStart) return p.startPremium;
  if (at >= auctionEnd) return p.endPremium;
  const down = p.startPremium > p.endPremium;
  const gap = down ? p.startPremium - p.endPremium : p.endPremium - p.startPremium;
  const elapsed = BigInt(at - p.auctionStart);
  let moved: bigint;
  if (p.decayRate === 0n) moved = (gap * elapsed) / BigInt(auctionEnd - p.auctionStart);
  else moved = p.decayRate * elapsed > gap ? gap : p.decayRate * elapsed;
  return down ? p.startPremium - moved : p.startPremium + moved;
}

/** `premium` improved for the taker by `bps` (more received, or less paid), rounded in the maker's favour. */
export function improvedPremium(premium: bigint, makerPaysTaker: boolean, bps: bigint): bigint {
  if (bps < 0n || bps > BPS) throw new RangeError(`bps must be 0..${BPS}, got ${bps}`);
  return (premium * (makerPaysTaker ? BPS + bps : BPS - bps)) / BPS;
}

/** Whether the curve moves from the taker's best price toward the maker's: down when the maker pays, up when the taker pays. */
export function curveFavoursTakerFirst(p: Pick<DutchPremium, 'makerPaysTaker' | 'startPremium' | 'endPremium'>): boolean {
  return p.makerPaysTaker ? p.startPremium > p.endPremium : p.startPremium < p.endPremium;
}
