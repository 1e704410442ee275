import { decodeOptionId } from '../../protocol/option-id';
import type { ActivityRecord, BookOrderRecord, HeadRecord, LevelRecord, SeriesRecord } from './clob-explore.repository';

/** Views of Explore for CLOBs: addresses checksummed (as stored), big integers as decimal strings, times ISO 8601 UTC. */

export type SeriesFields = {
  option_id: string;
  option_type: 'call' | 'put' | null;
  strike_wad: string | null;
  expiry_timestamp: number | null;
  start_exercise_timestamp: number | null;
};

export type BlockView = {
  number: number;
  hash: string | null;
  time: string | null;
};

export const isoOf = (unixSeconds: string | number | null): string | null => (unixSeconds === null ? null : new Date(Number(unixSeconds) * 1000).toISOString());

/** The block indexed data reflects; -1 before the first block is indexed. */
export const blockView = (h: HeadRecord | null): BlockView =>
  h ? { number: Number(h.block_number), hash: h.block_hash, time: isoOf(h.block_timestamp) } : { number: -1, hash: null, time: null };

/** A series from its option id; null fields when the id is not one of the protocol's. */
export function seriesFields(optionId: string): SeriesFields {
  try {
    const s = decodeOptionId(BigInt(optionId));
    return {
      option_id: optionId,
      option_type: s.option_type === 0 ? 'call' : 'put',
      strike_wad: s.strike_wad.toString(),
      expiry_timestamp: s.expiry_timestamp,
      start_exercise_timestamp: s.start_exercise_timestamp,
    };
  } catch {
    return { option_id: optionId, option_type: null, strike_wad: null, expiry_timestamp: null, start_exercise_timestamp: null };
  }
}

const side = (isBuy: boolean | null): 'buy' | 'sell' | null => (isBuy === null ? null : isBuy ? 'buy' : 'sell');

/** One line of activity: an order placed, filled or cancelled, or an ERC-6909 transfer. */
export function activityView(r: ActivityRecord) {
  const series = r.option_id === null ? null : seriesFields(r.option_id);
  return {
    type: r.kind,
    block_number: Number(r.block_number),
    log_index: r.log_index,
    time: isoOf(r.block_timestamp) as string,
    tx_hash: r.tx_hash,
    option_id: r.option_id,
    series: series && {
      option_type: series.option_type,
      strike_wad: series.strike_wad,
      expiry_timestamp: series.expiry_timestamp,
      start_exercise_timestamp: series.start_exercise_timestamp,
    },
    order_id: r.order_id,
    side: side(r.is_buy),
    price: r.price,
    amount: r.amount,
    remaining: r.remaining,
    account: r.account,
    counterparty: r.counterparty,
  };
}

export type ActivityView = ReturnType<typeof activityView>;

/** A fill: the resting order's owner (maker) and side, the filler (taker), and what changed hands. */
export function fillView(r: ActivityRecord) {
  const s = seriesFields(r.option_id ?? '0');
  const premium = r.price === null ? null : (BigInt(r.amount) * BigInt(r.price)).toString();
  return {
    block_number: Number(r.block_number),
    log_index: r.log_index,
    time: isoOf(r.block_timestamp) as string,
    tx_hash: r.tx_hash,
    order_id: r.order_id as string,
    ...(r.option_id === null ? { ...s, option_id: null } : s),
    maker: r.account,
    taker: r.counterparty as string,
    maker_side: side(r.is_buy),
    price: r.price as string,
    amount: r.amount,
    premium,
    order_remaining: r.remaining as string,
  };
}

export type FillView = ReturnType<typeof fillView>;

export type LevelView = {
  price: string;
  size: string;
  orders: number;
  order_list?: { order_id: string; owner: string; amount: string; remaining: string; placed_block: number; tx_hash: string }[];
};

export type SeriesBookView = SeriesFields & {
  open_interest: string;
  bids: LevelView[];
  asks: LevelView[];
};

/** Each series' levels, bids best (highest) first and asks best (lowest) first; with orders when read. */
export function seriesBooks(series: readonly SeriesRecord[], levels: readonly LevelRecord[], orders?: readonly BookOrderRecord[]): SeriesBookView[] {
  const byLevel = new Map<string, BookOrderRecord[]>();
  for (const o of orders ?? []) {
    const key = `${o.option_id}|${o.is_buy}|${o.price}`;
    const list = byLevel.get(key) ?? [];
    list.push(o);
    byLevel.set(key, list);
  }
  const bySeries = new Map<string, { bids: LevelRecord[]; asks: LevelRecord[] }>();
  for (const l of levels) {
    const b = bySeries.get(l.option_id) ?? { bids: [], asks: [] };
    (l.is_buy ? b.bids : b.asks).push(l);
    bySeries.set(l.option_id, b);
  }
  const cmp = (a: LevelRecord, b: LevelRecord) => (BigInt(a.price) < BigInt(b.price) ? -1 : BigInt(a.price) > BigInt(b.price) ? 1 : 0);
  const level = (l: LevelRecord): LevelView => {
    const v: LevelView = { price: l.price, size: l.size, orders: Number(l.orders) };
    if (orders) {
      v.order_list = (byLevel.get(`${l.option_id}|${l.is_buy}|${l.price}`) ?? []).map((o) => ({
        order_id: o.order_id,
        owner: o.owner,
        amount: o.amount,
        remaining: o.remaining,
        placed_block: Number(o.placed_block),
        tx_hash: o.tx_hash,
      }));
    }
    return v;
  };
  return series.map((s) => {
    const b = bySeries.get(s.option_id) ?? { bids: [], asks: [] };
    return {
      ...seriesFields(s.option_id),
      open_interest: s.open_interest,
      bids: [...b.bids].sort((x, y) => cmp(y, x)).map(level),
      asks: [...b.asks].sort(cmp).map(level),
    };
  });
}
