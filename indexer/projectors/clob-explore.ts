import type { Hex } from '../rpc/rpc';
import type { RowCollector, RowPosition } from './changeset';

/**
 * Rows of Explore's CLOB read models (migration ExploreClob1764004000000), projected from the
 * pair events and folded per batch before they are written. Pure: no I/O.
 */

const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';

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

/** The UTC day of unix seconds, as Postgres reads a `date`. */
export const utcDay = (unixSeconds: number): string => new Date(unixSeconds * 1000).toISOString().slice(0, 10);

/** A mint (from zero) adds to open interest, a burn (to zero) takes from it; other transfers leave it. */
export function openInterestDelta(sender: string, receiver: string, amount: bigint): bigint {
  if (sender === ZERO_ADDRESS && receiver !== ZERO_ADDRESS) return amount;
  if (receiver === ZERO_ADDRESS && sender !== ZERO_ADDRESS) return -amount;
  return 0n;
}

/** One row per series the batch touched: its first block in the batch and its net open-interest change. */
export function seriesChanges(): RowCollector<SeriesChange, SeriesDelta[]> {
  const byKey = new Map<string, { pair: Hex; option_id: string; first_block: number; oi: bigint; placed: number; transfers: number }>();
  return {
    add(c) {
      const key = `${c.pair}|${c.option_id}`;
      const s = byKey.get(key);
      if (s) {
        s.oi += c.oi_delta;
        s.placed += c.placed;
        s.transfers += c.transfer;
      } else byKey.set(key, { pair: c.pair, option_id: c.option_id, first_block: c.block, oi: c.oi_delta, placed: c.placed, transfers: c.transfer });
    },
    done: () =>
      [...byKey.values()].map((s) => ({
        pair: s.pair,
        option_id: s.option_id,
        first_block: s.first_block,
        oi_delta: s.oi.toString(),
        orders_placed: s.placed,
        transfers: s.transfers,
      })),
  };
}

/** Fills folded into one row per (pair, day, series) and one per (pair, day, trader), maker and taker alike. */
export function dailyRollups(): RowCollector<FillStat, DailyBatch> {
  const days = new Map<string, { pair: Hex; day: string; option_id: string; fills: number; volume: bigint; premium: bigint }>();
  const traders = new Map<string, TraderDay>();
  const trade = (pair: Hex, day: string, trader: Hex) => {
    const key = `${pair}|${day}|${trader}`;
    const t = traders.get(key);
    if (t) t.fills += 1;
    else traders.set(key, { pair, day, trader, fills: 1 });
  };
  return {
    add(f) {
      const day = utcDay(f.block_timestamp);
      const key = `${f.pair}|${day}|${f.option_id}`;
      const d = days.get(key) ?? { pair: f.pair, day, option_id: f.option_id, fills: 0, volume: 0n, premium: 0n };
      d.fills += 1;
      d.volume += f.amount;
      d.premium += f.amount * f.price;
      days.set(key, d);
      trade(f.pair, day, f.maker);
      if (f.taker !== f.maker) trade(f.pair, day, f.taker);
    },
    done: () => ({
      days: [...days.values()].map((d) => ({
        pair: d.pair,
        day: d.day,
        option_id: d.option_id,
        fills: d.fills,
        volume: d.volume.toString(),
        premium_volume: d.premium.toString(),
      })),
      traders: [...traders.values()],
    }),
  };
}
