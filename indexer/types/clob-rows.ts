import type { Hex } from '../rpc/rpc';
import type { RowPosition } from './rows';

/**
 * Rows of Explore's CLOB read models (migration ExploreClob1764004000000), projected from the
 * pair events (the store folds them per batch before they are written).
 */

/**
 * One line of a pair's activity. Fills and cancels name their order only: its series, side
 * (and, for a cancel, price) are read from the order book when the row is written.
 */
export interface ActivityRow extends RowPosition {
  pair: Hex;
  kind: 'placed' | 'filled' | 'cancelled' | 'transfer';
  option_id: string | null;
  order_id: string | null;
  is_buy: boolean | null;
  price: string | null;
  amount: string;
  remaining: string | null;
  /** The order's owner (placed, filled, cancelled) or the transfer's sender. */
  account: Hex;
  /** The filler (the taker of a fill) or the transfer's receiver. */
  counterparty: Hex | null;
}

/**
 * A log's effect on a series: it exists from `block`; a placement counts an order, a transfer
 * counts a transfer, and mints add to / burns take from its open interest.
 */
export interface SeriesChange {
  pair: Hex;
  option_id: string;
  block: number;
  oi_delta: bigint;
  placed: 0 | 1;
  transfer: 0 | 1;
}

export interface SeriesDelta {
  pair: Hex;
  option_id: string;
  first_block: number;
  oi_delta: string;
  orders_placed: number;
  transfers: number;
}

/** One fill, as the daily rollups count it. */
export interface FillStat {
  pair: Hex;
  option_id: string;
  block_timestamp: number;
  amount: bigint;
  price: bigint;
  maker: Hex;
  taker: Hex;
}

export interface DailyDelta {
  pair: Hex;
  day: string;
  option_id: string;
  fills: number;
  volume: string;
  premium_volume: string;
}

export interface TraderDay {
  pair: Hex;
  day: string;
  trader: Hex;
  fills: number;
}

export interface DailyBatch {
  days: DailyDelta[];
  traders: TraderDay[];
}
