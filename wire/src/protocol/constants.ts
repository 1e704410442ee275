/** Numeric limits and enums of the on-chain protocol; see docs/PROTOCOL.md. */

// The Solidity widths are defined with every other integer bound, in platform validation.
export { UINT8_MAX, UINT40_MAX, UINT144_MAX, UINT256_MAX, MAX_TIMESTAMP } from '../validation/integer-bounds';

/** The most legs one quote may carry; the largest recipe has four. */
export const MAX_LEGS = 8;

export const OPTION_TYPE = { call: 0, put: 1 } as const;
/** 0 = call, 1 = put. */
export type OptionType = 0 | 1;

/** 0 follows the quote polarity ("a"), 1 flips that leg ("b"). */
export type Structure = 0 | 1;

/** Per-leg trade side as committed on chain: 0 = Buy, 1 = Sell. */
export const DIRECTION = { buy: 0, sell: 1 } as const;
export type Direction = 0 | 1;

export const POLARITIES = ['b_is_buy', 'a_is_buy'] as const;
/** `b_is_buy` buys (is long) the named strategy, `a_is_buy` sells it. */
export type Polarity = (typeof POLARITIES)[number];
