import type { DataSource, EntityManager } from 'typeorm';
import type { PairRecord } from '../../indexed';
import type { Queryable } from '../../platform/db';
import { estimateDistinct, mergeSketches, splitSketches } from './trader-sketch';

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
  /** When asked for (an order limit given). */
  orders?: BookOrderRecord[];
}

/** A chain book's reads (chainBook). */
export interface ChainBookReads {
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

/** An overview's reads (overviewOfPair); all but `pairs` empty or null unless exactly one network indexed the pair. */
export interface PairOverview {
  pairs: PairRecord[];
  head: HeadRecord | null;
  series: SeriesRecord[];
  /** Fills, volume and premium volume of each series that traded in the window, in no order. */
  series_totals: (WindowTotals & { option_id: string })[];
  /** Totals of the window's last day. */
  last_day: WindowTotals;
  /** Totals of the whole window. */
  window_totals: WindowTotals;
  traders: UniqueTraders;
  last_fill: ActivityRecord | null;
}

/** A summary's reads (summaryOfPair). */
export interface PairSummary {
  pairs: PairRecord[];
  head: HeadRecord | null;
  days: DayRecord[];
  totals: WindowTotals;
  traders: UniqueTraders;
  /** Of the series asked for, or of all of them. */
  open_interest: string;
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

/**
 * The one-statement reads (bookOfPair, overviewOfPair, summaryOfPair, chainBook) return their
 * parts as JSON built here, every big number as text: the values the separate reads returned.
 */

/** CTEs `p`, the networks that indexed `$2` (`$1` when given; at most two, to tell ambiguity), and `c`, the chain when exactly one did. */
const PAIR_CTES = `p AS (
    SELECT chain_id, address, token0, token1, premium_token, created_block, tx_hash FROM indexer_pairs
     WHERE address = $2 AND ($1::int IS NULL OR chain_id = $1) ORDER BY chain_id LIMIT 2
  ), c AS (
    SELECT CASE WHEN count(*) = 1 THEN min(chain_id) END AS chain_id FROM p
  )`;

/** An activity row (ActivityRecord) of `indexer_clob_activity`. */
const ACTIVITY_JSON = `json_build_object('block_number', block_number::text, 'block_hash', block_hash, 'block_timestamp', block_timestamp::text,
  'log_index', log_index, 'tx_hash', tx_hash, 'pair', pair, 'kind', kind, 'option_id', option_id::text, 'order_id', order_id::text, 'is_buy', is_buy,
  'price', price::text, 'amount', amount::text, 'remaining', remaining::text, 'account', account, 'counterparty', counterparty)`;

const PAIR_JSON = `json_build_object('chain_id', chain_id, 'address', address, 'token0', token0, 'token1', token1,
  'premium_token', premium_token, 'created_block', created_block::text, 'tx_hash', tx_hash)`;

/** The head of `chain` (an expression) as a column: a HeadRecord or null. */
const headColumn = (
  chain: string,
) => `(SELECT json_build_object('block_number', block_number::text, 'block_hash', block_hash, 'block_timestamp', block_timestamp::text)
    FROM indexer_cursors WHERE chain_id = ${chain} ORDER BY block_number ASC LIMIT 1) AS head`;

const SERIES_JSON = `json_build_object('pair', pair, 'option_id', option_id::text, 'open_interest', open_interest::text,
  'orders_placed', orders_placed, 'transfers', transfers, 'first_block', first_block::text)`;

/**
 * Fills, volume and premium volume (WindowTotals) of the UTC days `from` to `to` (inclusive) of
 * `pair` on `chain` (expressions), optionally of one series (`option`, a numeric expression): at
 * most one row per day of the window is read (the pair's per-day rollup, or the series' rows of
 * the per-series rollup through its covering index).
 */
const totalsSelect = (chain: string, pair: string, from: string, to: string, option?: string) =>
  option === undefined
    ? `SELECT sum(fills)::text AS fills, sum(volume)::text AS volume, sum(premium_volume)::text AS premium_volume FROM indexer_clob_pair_daily
        WHERE chain_id = ${chain} AND pair = ${pair} AND day >= ${from} AND day <= ${to} AND fills > 0`
    : `SELECT sum(fills)::text AS fills, sum(volume)::text AS volume, sum(premium_volume)::text AS premium_volume FROM indexer_clob_daily
        WHERE chain_id = ${chain} AND pair = ${pair} AND option_id = ${option} AND day >= ${from} AND day <= ${to}`;

/**
 * One row per UTC day with fills in the window (DayRecord, in no order): totals and distinct
 * traders of that day (of the whole pair, also when one series is asked for). At most one row
 * per day is read.
 */
const daysSelect = (chain: string, pair: string, from: string, to: string, option?: string) =>
  option === undefined
    ? `SELECT to_char(day, 'YYYY-MM-DD') AS day, fills::text AS fills, volume::text AS volume, premium_volume::text AS premium_volume, traders::text AS traders
         FROM indexer_clob_pair_daily WHERE chain_id = ${chain} AND pair = ${pair} AND day >= ${from} AND day <= ${to} AND fills > 0`
    : `SELECT to_char(d.day, 'YYYY-MM-DD') AS day, d.fills::bigint::text AS fills, d.volume::text AS volume, d.premium_volume::text AS premium_volume,
              COALESCE(p.traders, 0)::text AS traders
         FROM indexer_clob_daily d
         LEFT JOIN indexer_clob_pair_daily p ON p.chain_id = d.chain_id AND p.pair = d.pair AND p.day = d.day
        WHERE d.chain_id = ${chain} AND d.pair = ${pair} AND d.option_id = ${option} AND d.day >= ${from} AND d.day <= ${to}`;

const LEVEL_JSON = `json_build_object('pair', pair, 'option_id', option_id::text, 'is_buy', is_buy, 'price', price::text, 'size', size::text, 'orders', orders::text)`;

/**
 * The best `depth` levels of each side of each series the CTE `s` lists (columns pair and
 * option_id): per series and side one walk of indexer_clob_levels' primary key, stopping after
 * `depth` rows. `chain` is an expression, `depth` a parameter.
 */
const levelWalks = (chain: string, depth: string) => {
  const side = (isBuy: boolean) => `
    SELECT s.pair, s.option_id, ${isBuy} AS is_buy, l.price, l.size, l.orders
      FROM s CROSS JOIN LATERAL (
        SELECT v.price, v.size, v.orders FROM indexer_clob_levels v
         WHERE v.chain_id = ${chain} AND v.pair = s.pair AND v.option_id = s.option_id AND v.is_buy = ${isBuy}
         ORDER BY v.price ${isBuy ? 'DESC' : 'ASC'} LIMIT ${depth}
      ) l`;
  return `${side(true)} UNION ALL ${side(false)}`;
};

/**
 * A book's orders (bookOfPair with an order limit, `$5`), as a column over its CTEs `c` and `lv`:
 * per series and side, the open orders at or better than the worst listed level (the levels'
 * lowest bid, highest ask), best price first and oldest first within a price, at most `$5`; one
 * walk each, beside the levels in the same snapshot.
 */
const ORDERS_COLUMN = `(
    SELECT coalesce(json_agg(json_build_object('pair', o.pair, 'option_id', o.option_id::text, 'order_id', o.order_id::text, 'owner', o.owner, 'is_buy', o.is_buy,
             'price', o.price::text, 'amount', o.amount::text, 'remaining', o.remaining::text, 'placed_block', o.placed_block::text, 'tx_hash', o.tx_hash)
             ORDER BY o.option_id, o.is_buy, o.price, o.placed_block, o.placed_log_index), '[]')
      FROM (SELECT option_id, is_buy, CASE WHEN is_buy THEN min(price) ELSE max(price) END AS worst FROM lv GROUP BY option_id, is_buy) b
      CROSS JOIN LATERAL (
        SELECT * FROM indexer_orders o
         WHERE o.chain_id = (SELECT chain_id FROM c) AND o.pair = $2 AND o.option_id = b.option_id AND o.is_buy = b.is_buy AND o.state = 'open'
           AND CASE WHEN b.is_buy THEN o.price >= b.worst ELSE o.price <= b.worst END
         ORDER BY CASE WHEN b.is_buy THEN o.price END DESC, CASE WHEN NOT b.is_buy THEN o.price END ASC, o.placed_block, o.placed_log_index
         LIMIT $5
      ) o
  ) AS orders`;

/**
 * What a unique-traders count reads, as a CTE `span` and three columns of one statement, over
 * the pair's days from `from` to `to` (parameters of type date) on `chain`: the trader-days and
 * the busiest day; how the count is made (UniqueTraders' rules); and only when that way needs
 * them, the exact distinct count or the days' sketches. Each is a subquery Postgres runs when the
 * CASE reaches it (an InitPlan runs on first use), so a statement reads what the separate reads
 * read: the span always, then at most one of the two.
 */
const tradersSpan = (chain: string, pair: string, from: string, to: string) => `span AS (
    SELECT coalesce(sum(traders), 0) AS trader_days, coalesce(max(traders), 0) AS busiest,
           CASE WHEN ${from} = ${to} OR coalesce(sum(traders), 0) = coalesce(max(traders), 0) THEN 'span'
                WHEN coalesce(sum(traders), 0) <= ${EXACT_TRADER_DAYS} THEN 'exact' ELSE 'sketch' END AS way
      FROM indexer_clob_pair_daily WHERE chain_id = ${chain} AND pair = ${pair} AND day >= ${from} AND day <= ${to}
  )`;
const tradersColumns = (chain: string, pair: string, from: string, to: string) => `
    (SELECT trader_days::text FROM span) AS trader_days, (SELECT busiest::text FROM span) AS busiest, (SELECT way FROM span) AS way,
    CASE WHEN (SELECT way FROM span) = 'exact' THEN (
      SELECT count(*)::text FROM (SELECT DISTINCT trader FROM indexer_clob_traders WHERE chain_id = ${chain} AND pair = ${pair} AND day >= ${from} AND day <= ${to}) t
    ) END AS exact_traders,
    CASE WHEN (SELECT way FROM span) = 'sketch' THEN (
      SELECT coalesce(string_agg(registers, ''::bytea), ''::bytea) FROM indexer_clob_trader_sketch WHERE chain_id = ${chain} AND pair = ${pair} AND day >= ${from} AND day <= ${to}
    ) END AS sketches`;

/** The columns tradersColumns returns. */
interface TradersRow {
  trader_days: string;
  busiest: string;
  way: 'span' | 'exact' | 'sketch';
  exact_traders: string | null;
  /** The days' registers end to end (one bytea: an array of them costs the API a slow text parse). */
  sketches: Buffer | null;
}

/**
 * The count from its reads. One day, or a window whose trader-days are its busiest day's (one
 * day traded): the span's sum. Up to EXACT_TRADER_DAYS trader-days: the exact distinct count.
 * Past it, the merged sketches' estimate, kept between the busiest day's count and the window's
 * trader-days.
 */
function tradersOf(r: TradersRow): UniqueTraders {
  const traderDays = Number(r.trader_days);
  const busiest = Number(r.busiest);
  if (r.way === 'span') return { count: traderDays, estimated: false };
  if (r.way === 'exact') return { count: Number(r.exact_traders), estimated: false };
  const estimate = Math.round(estimateDistinct(mergeSketches(splitSketches(r.sketches ?? Buffer.alloc(0)))));
  return { count: Math.min(traderDays, Math.max(busiest, estimate)), estimated: true };
}

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

  /**
   * What a chain book reads, in one statement (one snapshot): the chain's pairs, oldest first, at
   * most 1,000, optionally only those trading a token (as token0 or token1) or paying premium in
   * one; its head; their series; and the best `depth` levels of each side of each (levelWalks).
   */
  async chainBook(chainId: number, f: { token?: string; premiumToken?: string }, depth: number): Promise<ChainBookReads> {
    const [row]: ChainBookReads[] = await this.db.query(
      `WITH p AS (
         SELECT chain_id, address, token0, token1, premium_token, created_block, tx_hash FROM indexer_pairs
          WHERE chain_id = $1 AND ($2::text IS NULL OR token0 = $2 OR token1 = $2) AND ($3::text IS NULL OR premium_token = $3)
          ORDER BY created_block, address LIMIT 1000
       ), s AS (
         SELECT pair, option_id, open_interest, orders_placed, transfers, first_block FROM indexer_clob_series
          WHERE chain_id = $1 AND pair IN (SELECT address FROM p)
       ), lv AS (${levelWalks('$1', '$4')})
       SELECT
         (SELECT coalesce(json_agg(${PAIR_JSON} ORDER BY created_block, address), '[]') FROM p) AS pairs,
         ${headColumn('$1')},
         (SELECT coalesce(json_agg(${SERIES_JSON} ORDER BY pair, option_id), '[]') FROM s) AS series,
         (SELECT coalesce(json_agg(${LEVEL_JSON}), '[]') FROM lv) AS levels`,
      [chainId, f.token ?? null, f.premiumToken ?? null, depth],
    );
    return row;
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
  async bookOfPair(address: string, chainId: number | undefined, depth: number, optionId?: string, orderLimit?: number): Promise<PairBook> {
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
                 'size', size::text, 'orders', orders::text) ORDER BY option_id, is_buy DESC, CASE WHEN is_buy THEN price END DESC, price), '[]') FROM lv) AS levels
         ${orderLimit === undefined ? '' : `, ${ORDERS_COLUMN}`}`,
      [chainId ?? null, address, depth, optionId ?? null, ...(orderLimit === undefined ? [] : [orderLimit])],
    );
    return row;
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

  /** The window's totals: totalsSelect. */
  async windowTotals(m: Queryable, chainId: number, pair: string, fromDay: string, toDay: string, optionId?: string): Promise<WindowTotals> {
    const params = [chainId, pair, fromDay, toDay, ...(optionId === undefined ? [] : [optionId])];
    const rows: WindowTotals[] = await m.query(totalsSelect('$1', '$2', '$3::date', '$4::date', optionId === undefined ? undefined : '$5::numeric'), params);
    return rows[0];
  }

  /** The window's days with fills, oldest first: daysSelect. */
  async days(m: Queryable, chainId: number, pair: string, fromDay: string, toDay: string, optionId?: string): Promise<DayRecord[]> {
    const params = [chainId, pair, fromDay, toDay, ...(optionId === undefined ? [] : [optionId])];
    return m.query(
      `SELECT * FROM (${daysSelect('$1', '$2', '$3::date', '$4::date', optionId === undefined ? undefined : '$5::numeric')}) d ORDER BY day`,
      params,
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
    const [row]: TradersRow[] = await m.query(
      `WITH ${tradersSpan('$1', '$2', '$3::date', '$4::date')} SELECT ${tradersColumns('$1', '$2', '$3::date', '$4::date')}`,
      [chainId, pair, fromDay, toDay],
    );
    return tradersOf(row);
  }

  /**
   * What an overview reads, in one statement (one snapshot): the networks that indexed `address`
   * (bookOfPair's `pairs`), and when exactly one did, its head, the pair's series, each series'
   * fills and volume over the days `fromDay` to `toDay`, the totals of the day `toDay` and of the
   * window, the window's unique traders and the last fill.
   */
  async overviewOfPair(address: string, chainId: number | undefined, fromDay: string, toDay: string): Promise<PairOverview> {
    const chain = '(SELECT chain_id FROM c)';
    const [row]: (Omit<PairOverview, 'traders'> & TradersRow)[] = await this.db.query(
      `WITH ${PAIR_CTES}, ${tradersSpan(chain, '$2', '$3::date', '$4::date')}
       SELECT
         (SELECT coalesce(json_agg(${PAIR_JSON} ORDER BY chain_id), '[]') FROM p) AS pairs,
         ${headColumn(chain)},
         (SELECT coalesce(json_agg(${SERIES_JSON} ORDER BY pair, option_id), '[]') FROM indexer_clob_series WHERE chain_id = ${chain} AND pair = $2) AS series,
         (SELECT coalesce(json_agg(json_build_object('option_id', option_id::text, 'fills', fills::text, 'volume', volume::text, 'premium_volume', premium_volume::text)), '[]')
            FROM (SELECT option_id, sum(fills) AS fills, sum(volume) AS volume, sum(premium_volume) AS premium_volume FROM indexer_clob_daily
                   WHERE chain_id = ${chain} AND pair = $2 AND day >= $3::date AND day <= $4::date GROUP BY option_id) t) AS series_totals,
         (SELECT row_to_json(t) FROM (${totalsSelect(chain, '$2', '$4::date', '$4::date')}) t) AS last_day,
         (SELECT row_to_json(t) FROM (${totalsSelect(chain, '$2', '$3::date', '$4::date')}) t) AS window_totals,
         ${tradersColumns(chain, '$2', '$3::date', '$4::date')},
         (SELECT ${ACTIVITY_JSON} FROM indexer_clob_activity
           WHERE chain_id = ${chain} AND pair = $2 AND kind = 'filled' ORDER BY block_number DESC, log_index DESC LIMIT 1) AS last_fill`,
      [chainId ?? null, address, fromDay, toDay],
    );
    return { ...row, traders: tradersOf(row) };
  }

  /**
   * What a summary reads, in one statement (one snapshot): the networks that indexed `address`,
   * and when exactly one did, its head, the days from `fromDay` to `toDay` with fills (of one
   * series when `optionId` is given; distinct traders of the whole pair), the window's totals
   * and unique traders, and the open interest now (of the series, or of every one).
   */
  async summaryOfPair(address: string, chainId: number | undefined, fromDay: string, toDay: string, optionId?: string): Promise<PairSummary> {
    const chain = '(SELECT chain_id FROM c)';
    const option = optionId === undefined ? undefined : '$5::numeric';
    const [row]: (Omit<PairSummary, 'traders'> & TradersRow)[] = await this.db.query(
      `WITH ${PAIR_CTES}, ${tradersSpan(chain, '$2', '$3::date', '$4::date')}
       SELECT
         (SELECT coalesce(json_agg(${PAIR_JSON} ORDER BY chain_id), '[]') FROM p) AS pairs,
         ${headColumn(chain)},
         (SELECT coalesce(json_agg(d ORDER BY d.day), '[]') FROM (${daysSelect(chain, '$2', '$3::date', '$4::date', option)}) d) AS days,
         (SELECT row_to_json(t) FROM (${totalsSelect(chain, '$2', '$3::date', '$4::date', option)}) t) AS totals,
         ${tradersColumns(chain, '$2', '$3::date', '$4::date')},
         (SELECT coalesce(sum(open_interest), 0)::text FROM indexer_clob_series
           WHERE chain_id = ${chain} AND pair = $2 AND ($5::numeric IS NULL OR option_id = $5::numeric)) AS open_interest`,
      [chainId ?? null, address, fromDay, toDay, optionId ?? null],
    );
    return { ...row, traders: tradersOf(row) };
  }

  /** Runs `fn` on one repeatable-read snapshot: a snapshot's parts and its block agree. */
  consistent<T>(fn: (m: EntityManager) => Promise<T>): Promise<T> {
    return this.db.transaction('REPEATABLE READ', fn);
  }
}
