import type { DataSource, EntityManager } from 'typeorm';
import type { PairRecord } from '../../indexed';
import type { Queryable } from '../../platform/db';
import { estimateDistinct, mergeSketches } from './trader-sketch';

/**
 * Every query of Explore for CLOBs, over the indexer's tables and the read models it keeps for
 * Explore (migration ExploreClob1764004000000). Each list is a keyset scan of one index, newest
 * first, from the cursor's position; aggregates read the per-day rollups, never the fills.
 */

/**
 * Up to this many trader-days in a window, its unique traders are counted exactly (a distinct
 * over at most this many index entries, about a millisecond of Postgres); past it, estimated from
 * the days' sketches.
 */
export const EXACT_TRADER_DAYS = 2_000;

/** Distinct traders of a window, and whether the count is the sketches' estimate rather than exact. */
export interface UniqueTraders {
  count: number;
  estimated: boolean;
}

export interface HeadRecord {
  block_number: string;
  block_hash: string | null;
  block_timestamp: string | null;
}

export interface SeriesRecord {
  pair: string;
  option_id: string;
  open_interest: string;
  orders_placed: number;
  transfers: number;
  first_block: string;
}

export interface LevelRecord {
  pair: string;
  option_id: string;
  is_buy: boolean;
  price: string;
  size: string;
  orders: string;
}

/** A book answer's reads (bookOfPair): `pairs` holds every network that indexed the address, at most two. */
export interface PairBook {
  pairs: PairRecord[];
  head: HeadRecord | null;
  series: SeriesRecord[];
  levels: LevelRecord[];
}

export interface BookOrderRecord {
  pair: string;
  option_id: string;
  order_id: string;
  owner: string;
  is_buy: boolean;
  price: string;
  amount: string;
  remaining: string;
  placed_block: string;
  tx_hash: string;
}

export interface ActivityRecord {
  block_number: string;
  block_hash: string;
  block_timestamp: string;
  log_index: number;
  tx_hash: string;
  pair: string;
  kind: 'placed' | 'filled' | 'cancelled' | 'transfer';
  option_id: string | null;
  order_id: string | null;
  is_buy: boolean | null;
  price: string | null;
  amount: string;
  remaining: string | null;
  account: string;
  counterparty: string | null;
}

export interface WindowTotals {
  fills: string | null;
  volume: string | null;
  premium_volume: string | null;
}

export interface DayRecord {
  day: string;
  fills: string;
  volume: string;
  premium_volume: string;
  traders: string;
}

export interface ActivityFilter {
  kinds?: readonly ActivityRecord['kind'][];
  optionId?: string;
  address?: string;
  /** Unix seconds, inclusive. */
  since?: number;
  /** Unix seconds, exclusive. */
  until?: number;
  /** Keyset position: rows strictly older than (block, log index). */
  before?: readonly [number, number];
}

const ACTIVITY_COLUMNS = `block_number, block_hash, block_timestamp, log_index, tx_hash, pair, kind, option_id, order_id, is_buy, price, amount,
  remaining, account, counterparty`;

export class ClobExploreRepository {
  constructor(private readonly db: DataSource) {}

  /** The pair on `chainId`, or on any chain when none is given (every chain holding it, to tell ambiguity). */
  async pairs(address: string, chainId?: number): Promise<PairRecord[]> {
    return this.db.query(
      `SELECT chain_id, address, token0, token1, premium_token, created_block, tx_hash FROM indexer_pairs
        WHERE address = $1 AND ($2::int IS NULL OR chain_id = $2) ORDER BY chain_id`,
      [address, chainId ?? null],
    );
  }

  /** Pairs of a chain, optionally only those trading a token (as token0 or token1) or paying premium in one. */
  async pairsOfChain(chainId: number, f: { token?: string; premiumToken?: string }): Promise<PairRecord[]> {
    return this.db.query(
      `SELECT chain_id, address, token0, token1, premium_token, created_block, tx_hash FROM indexer_pairs
        WHERE chain_id = $1 AND ($2::text IS NULL OR token0 = $2 OR token1 = $2) AND ($3::text IS NULL OR premium_token = $3)
        ORDER BY created_block, address LIMIT 1000`,
      [chainId, f.token ?? null, f.premiumToken ?? null],
    );
  }

  /** The block the indexed data of a chain reflects (the lowest cursor: every contract set is indexed up to it). */
  async head(m: Queryable, chainId: number): Promise<HeadRecord | null> {
    const rows: HeadRecord[] = await m.query(
      `SELECT block_number, block_hash, block_timestamp FROM indexer_cursors WHERE chain_id = $1 ORDER BY block_number ASC LIMIT 1`,
      [chainId],
    );
    return rows[0] ?? null;
  }

  async series(m: Queryable, chainId: number, pairs: readonly string[]): Promise<SeriesRecord[]> {
    return m.query(
      `SELECT pair, option_id, open_interest, orders_placed, transfers, first_block FROM indexer_clob_series WHERE chain_id = $1 AND pair = ANY($2::text[]) ORDER BY pair, option_id`,
      [chainId, pairs],
    );
  }

  /**
   * The best `depth` price levels of each side of each series: per series and side, one walk of
   * the primary key of the book read model `indexer_clob_levels` (one row per price, kept by
   * triggers on the orders), stopping after `depth` rows.
   */
  async levels(m: Queryable, chainId: number, pairs: readonly string[], depth: number, optionId?: string): Promise<LevelRecord[]> {
    const level = (isBuy: boolean) => `
      SELECT s.pair, s.option_id, ${isBuy} AS is_buy, l.price, l.size, l.orders
        FROM indexer_clob_series s
        CROSS JOIN LATERAL (
          SELECT v.price, v.size, v.orders::text AS orders FROM indexer_clob_levels v
           WHERE v.chain_id = $1 AND v.pair = s.pair AND v.option_id = s.option_id AND v.is_buy = ${isBuy}
           ORDER BY v.price ${isBuy ? 'DESC' : 'ASC'} LIMIT $3
        ) l
       WHERE s.chain_id = $1 AND s.pair = ANY($2::text[]) AND ($4::numeric IS NULL OR s.option_id = $4)`;
    return m.query(`${level(true)} UNION ALL ${level(false)}`, [chainId, pairs, depth, optionId ?? null]);
  }

  /**
   * What a book answer reads, in one statement (one snapshot, so no transaction around it): the
   * networks that indexed `address` (`chainId` when given; at most two, to tell ambiguity), and
   * when exactly one did, its head, the pair's series and the best `depth` levels of each side
   * (the walks of `levels`). Rows come back as JSON with every big number as text, exactly as
   * the separate reads return them.
   */
  async bookOfPair(address: string, chainId: number | undefined, depth: number, optionId?: string): Promise<PairBook> {
    const level = (isBuy: boolean) => `
      SELECT s.option_id, ${isBuy} AS is_buy, l.price, l.size, l.orders
        FROM s CROSS JOIN LATERAL (
          SELECT v.price, v.size, v.orders FROM indexer_clob_levels v
           WHERE v.chain_id = (SELECT chain_id FROM c) AND v.pair = $2 AND v.option_id = s.option_id AND v.is_buy = ${isBuy}
           ORDER BY v.price ${isBuy ? 'DESC' : 'ASC'} LIMIT $3
        ) l
       WHERE $4::numeric IS NULL OR s.option_id = $4`;
    const [row]: PairBook[] = await this.db.query(
      `WITH p AS (
         SELECT chain_id, address, token0, token1, premium_token, created_block, tx_hash FROM indexer_pairs
          WHERE address = $2 AND ($1::int IS NULL OR chain_id = $1) ORDER BY chain_id LIMIT 2
       ), c AS (
         SELECT CASE WHEN count(*) = 1 THEN min(chain_id) END AS chain_id FROM p
       ), s AS (
         SELECT pair, option_id, open_interest, orders_placed, transfers, first_block FROM indexer_clob_series
          WHERE chain_id = (SELECT chain_id FROM c) AND pair = $2
       ), lv AS (${level(true)} UNION ALL ${level(false)})
       SELECT
         (SELECT coalesce(json_agg(json_build_object('chain_id', chain_id, 'address', address, 'token0', token0, 'token1', token1,
                 'premium_token', premium_token, 'created_block', created_block::text, 'tx_hash', tx_hash) ORDER BY chain_id), '[]') FROM p) AS pairs,
         (SELECT json_build_object('block_number', block_number::text, 'block_hash', block_hash, 'block_timestamp', block_timestamp::text)
            FROM indexer_cursors WHERE chain_id = (SELECT chain_id FROM c) ORDER BY block_number ASC LIMIT 1) AS head,
         (SELECT coalesce(json_agg(json_build_object('pair', pair, 'option_id', option_id::text, 'open_interest', open_interest::text,
                 'orders_placed', orders_placed, 'transfers', transfers, 'first_block', first_block::text) ORDER BY pair, option_id), '[]') FROM s) AS series,
         (SELECT coalesce(json_agg(json_build_object('pair', $2::text, 'option_id', option_id::text, 'is_buy', is_buy, 'price', price::text,
                 'size', size::text, 'orders', orders::text) ORDER BY option_id, is_buy DESC, CASE WHEN is_buy THEN price END DESC, price), '[]') FROM lv) AS levels`,
      [chainId ?? null, address, depth, optionId ?? null],
    );
    return row;
  }

  /** Open orders at or better than the worst listed level of each series and side, best price first, oldest first within a price. */
  async bookOrders(m: Queryable, chainId: number, pair: string, levels: readonly LevelRecord[], limit: number): Promise<BookOrderRecord[]> {
    const bounds = new Map<string, { option_id: string; is_buy: boolean; worst: bigint }>();
    for (const l of levels) {
      const key = `${l.option_id}|${l.is_buy}`;
      const p = BigInt(l.price);
      const b = bounds.get(key);
      if (!b) bounds.set(key, { option_id: l.option_id, is_buy: l.is_buy, worst: p });
      else if (l.is_buy ? p < b.worst : p > b.worst) b.worst = p;
    }
    if (bounds.size === 0) return [];
    const list = [...bounds.values()];
    return m.query(
      `SELECT o.pair, o.option_id, o.order_id, o.owner, o.is_buy, o.price, o.amount, o.remaining, o.placed_block, o.tx_hash
         FROM unnest($3::numeric[], $4::boolean[], $5::numeric[]) AS b(option_id, is_buy, worst)
         CROSS JOIN LATERAL (
           SELECT * FROM indexer_orders o
            WHERE o.chain_id = $1 AND o.pair = $2 AND o.option_id = b.option_id AND o.is_buy = b.is_buy AND o.state = 'open'
              AND CASE WHEN b.is_buy THEN o.price >= b.worst ELSE o.price <= b.worst END
            ORDER BY CASE WHEN b.is_buy THEN o.price END DESC, CASE WHEN NOT b.is_buy THEN o.price END ASC, o.placed_block, o.placed_log_index
            LIMIT $6
         ) o`,
      [chainId, pair, list.map((b) => b.option_id), list.map((b) => b.is_buy), list.map((b) => b.worst.toString()), limit],
    );
  }

  /**
   * Activity newest first from the filter's position, at most `limit` rows. An address matches
   * as account or counterparty: two index walks merged, each stopping at `limit`.
   */
  async activity(m: Queryable, chainId: number, pair: string, f: ActivityFilter, limit: number): Promise<ActivityRecord[]> {
    return this.activityWhere(m, '$1', [chainId, pair, limit], f);
  }

  /**
   * The same page, with the pair found in the same statement (one round trip instead of two):
   * the chain is the one network that indexed `address` (`chainId` when given), read by an
   * InitPlan the index walk then uses as its key. No rows when no network or several did; the
   * caller then asks `pairs` why (an empty page of a known pair, 404, or 400 naming chain_id).
   */
  async activityOfPair(address: string, chainId: number | undefined, f: ActivityFilter, limit: number): Promise<ActivityRecord[]> {
    const chain = `(SELECT CASE WHEN count(*) = 1 THEN min(chain_id) END FROM indexer_pairs WHERE address = $2 AND ($1::int IS NULL OR chain_id = $1))`;
    return this.activityWhere(this.db, chain, [chainId ?? null, address, limit], f);
  }

  private async activityWhere(m: Queryable, chain: string, params: unknown[], f: ActivityFilter): Promise<ActivityRecord[]> {
    const where = [`chain_id = ${chain}`, 'pair = $2'];
    const bind = (v: unknown) => {
      params.push(v);
      return `$${params.length}`;
    };
    if (f.kinds && f.kinds.length > 0) where.push(f.kinds.length === 1 ? `kind = ${bind(f.kinds[0])}` : `kind = ANY(${bind(f.kinds)}::text[])`);
    if (f.optionId !== undefined) where.push(`option_id = ${bind(f.optionId)}::numeric`);
    if (f.since !== undefined) where.push(`block_timestamp >= ${bind(f.since)}`);
    if (f.until !== undefined) where.push(`block_timestamp < ${bind(f.until)}`);
    if (f.before) where.push(`(block_number, log_index) < (${bind(f.before[0])}::bigint, ${bind(f.before[1])}::int)`);
    const order = 'ORDER BY block_number DESC, log_index DESC LIMIT $3';
    if (f.address === undefined) return m.query(`SELECT ${ACTIVITY_COLUMNS} FROM indexer_clob_activity WHERE ${where.join(' AND ')} ${order}`, params);
    const who = bind(f.address);
    const base = where.join(' AND ');
    return m.query(
      `SELECT ${ACTIVITY_COLUMNS} FROM (
         (SELECT ${ACTIVITY_COLUMNS} FROM indexer_clob_activity WHERE ${base} AND account = ${who} ${order})
         UNION
         (SELECT ${ACTIVITY_COLUMNS} FROM indexer_clob_activity WHERE ${base} AND counterparty = ${who} ${order})
       ) a ${order}`,
      params,
    );
  }

  /**
   * Fills, volume and premium volume of the UTC days from `fromDay` to `toDay` (inclusive),
   * optionally of one series: at most one row per day of the window is read (the pair's
   * per-day rollup, or the series' rows of the per-series rollup through its covering index).
   */
  async windowTotals(m: Queryable, chainId: number, pair: string, fromDay: string, toDay: string, optionId?: string): Promise<WindowTotals> {
    const rows: WindowTotals[] =
      optionId === undefined
        ? await m.query(
            `SELECT sum(fills) AS fills, sum(volume) AS volume, sum(premium_volume) AS premium_volume FROM indexer_clob_pair_daily
              WHERE chain_id = $1 AND pair = $2 AND day >= $3::date AND day <= $4::date AND fills > 0`,
            [chainId, pair, fromDay, toDay],
          )
        : await m.query(
            `SELECT sum(fills) AS fills, sum(volume) AS volume, sum(premium_volume) AS premium_volume FROM indexer_clob_daily
              WHERE chain_id = $1 AND pair = $2 AND option_id = $5::numeric AND day >= $3::date AND day <= $4::date`,
            [chainId, pair, fromDay, toDay, optionId],
          );
    return rows[0];
  }

  /** Per-series fills and volume over a window of UTC days. */
  async seriesTotals(m: Queryable, chainId: number, pair: string, fromDay: string, toDay: string): Promise<(WindowTotals & { option_id: string })[]> {
    return m.query(
      `SELECT option_id, sum(fills) AS fills, sum(volume) AS volume, sum(premium_volume) AS premium_volume FROM indexer_clob_daily
        WHERE chain_id = $1 AND pair = $2 AND day >= $3::date AND day <= $4::date GROUP BY option_id`,
      [chainId, pair, fromDay, toDay],
    );
  }

  /**
   * One row per UTC day with fills in the window: totals and distinct traders of that day (of
   * the whole pair, also when one series is asked for). At most one row per day is read.
   */
  async days(m: Queryable, chainId: number, pair: string, fromDay: string, toDay: string, optionId?: string): Promise<DayRecord[]> {
    if (optionId === undefined)
      return m.query(
        `SELECT to_char(day, 'YYYY-MM-DD') AS day, fills, volume, premium_volume, traders FROM indexer_clob_pair_daily
          WHERE chain_id = $1 AND pair = $2 AND day >= $3::date AND day <= $4::date AND fills > 0
          ORDER BY day`,
        [chainId, pair, fromDay, toDay],
      );
    return m.query(
      `SELECT to_char(d.day, 'YYYY-MM-DD') AS day, d.fills::bigint AS fills, d.volume, d.premium_volume, COALESCE(p.traders, 0) AS traders
         FROM indexer_clob_daily d
         LEFT JOIN indexer_clob_pair_daily p ON p.chain_id = d.chain_id AND p.pair = d.pair AND p.day = d.day
        WHERE d.chain_id = $1 AND d.pair = $2 AND d.option_id = $5::numeric AND d.day >= $3::date AND d.day <= $4::date
        ORDER BY d.day`,
      [chainId, pair, fromDay, toDay, optionId],
    );
  }

  /**
   * Distinct wallets that made or took a fill in the window. One day is one row of the pair's
   * per-day rollup. A longer window with at most EXACT_TRADER_DAYS trader-days (the rollup's
   * per-day counts summed) is counted exactly over them; a larger one merges the days' HyperLogLog
   * sketches (one row per day: ./trader-sketch.ts), an estimate kept between the busiest day's
   * count and the window's trader-days. docs/EXPLORE.md, "Unique traders".
   */
  async uniqueTraders(m: Queryable, chainId: number, pair: string, fromDay: string, toDay: string): Promise<UniqueTraders> {
    const [span]: { trader_days: string | null; busiest: string | null }[] = await m.query(
      `SELECT sum(traders) AS trader_days, max(traders) AS busiest FROM indexer_clob_pair_daily WHERE chain_id = $1 AND pair = $2 AND day >= $3::date AND day <= $4::date`,
      [chainId, pair, fromDay, toDay],
    );
    const traderDays = Number(span?.trader_days ?? 0);
    const busiest = Number(span?.busiest ?? 0);
    if (fromDay === toDay || traderDays === busiest) return { count: traderDays, estimated: false };
    if (traderDays <= EXACT_TRADER_DAYS) {
      const rows: { n: string }[] = await m.query(
        `SELECT count(*) AS n FROM (SELECT DISTINCT trader FROM indexer_clob_traders WHERE chain_id = $1 AND pair = $2 AND day >= $3::date AND day <= $4::date) t`,
        [chainId, pair, fromDay, toDay],
      );
      return { count: Number(rows[0].n), estimated: false };
    }
    const sketches: { registers: Buffer }[] = await m.query(
      `SELECT registers FROM indexer_clob_trader_sketch WHERE chain_id = $1 AND pair = $2 AND day >= $3::date AND day <= $4::date`,
      [chainId, pair, fromDay, toDay],
    );
    const estimate = Math.round(estimateDistinct(mergeSketches(sketches.map((s) => s.registers))));
    return { count: Math.min(traderDays, Math.max(busiest, estimate)), estimated: true };
  }

  /** Runs `fn` on one repeatable-read snapshot: a snapshot's parts and its block agree. */
  consistent<T>(fn: (m: EntityManager) => Promise<T>): Promise<T> {
    return this.db.transaction('REPEATABLE READ', fn);
  }
}
