/** Numeric limits and enums of the on-chain protocol; see docs/PROTOCOL.md. */

export const UINT8_MAX = 255n;
export const UINT40_MAX = (1n << 40n) - 1n;
export const UINT144_MAX = (1n << 144n) - 1n;
export const UINT256_MAX = (1n << 256n) - 1n;

/** Timestamps are uint40 on chain: unix seconds up to the year 36812. */
export const MAX_TIMESTAMP = Number(UINT40_MAX);

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
