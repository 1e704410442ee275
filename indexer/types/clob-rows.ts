import type { Hex } from '../rpc/rpc';

/**
 * Rows of Explore's CLOB read models (migration ExploreClob1764004000000), projected from the
 * pair events (the store folds them per batch before they are written).
 */

/**
 * The blocks of a batch that hold activity (orders placed, filled, cancelled and transfers of a
 * pair): the activity rows themselves are derived in SQL from the events and transfers the batch
 * stored there (indexer/store/clob-explore-store.ts, `writeActivity`), not sent a second time.
 */
export interface BlockSpan {
  from: number;
  to: number;
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
