import type { DataSource, EntityManager } from 'typeorm';
import type { PairRecord } from '../../shared/indexed';
import type { Queryable } from '../../shared/platform/db';
import { NotFoundError, ValidationError } from '../../shared/platform/errors';
import {
  EXACT_TRADER_DAYS,
  type ActivityFilter,
  type ActivityRecord,
  type BookOrderRecord,
  type DayRecord,
  type HeadRecord,
  type LevelRecord,
  type SeriesRecord,
  type UniqueTraders,
  type WindowTotals,
} from '../../shared/explore/clob/clob-explore.repository';
import { blockView, fillView, seriesBooks, seriesFields, type SeriesBookView } from '../../shared/explore/clob/clob-explore.views';
import { estimateDistinct, mergeSketches } from '../../shared/explore/clob/trader-sketch';

/**
 * The overview, the summary and the books of Explore for CLOBs as they were read before issue
 * #41 made each one statement: the pair first, then one read after another inside a
 * REPEATABLE READ transaction (one snapshot). Kept here, unchanged, as the reference the
 * one-statement reads are compared with byte for byte (test/integration/explore/one-statement-reads.test.ts).
 */

const ACTIVITY_COLUMNS = `block_number, block_hash, block_timestamp, log_index, tx_hash, pair, kind, option_id, order_id, is_buy, price, amount,
  remaining, account, counterparty`;

const DAY_MS = 86_400_000;
const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const dayMs = (day: string) => Date.parse(`${day}T00:00:00Z`);
const num = (v: string | null) => v ?? '0';

function onlyPair(found: readonly PairRecord[], address: string, chainId?: number): PairRecord {
  if (found.length === 0) throw new NotFoundError(`clob ${address} is not indexed${chainId ? ` on chain ${chainId}` : ''}`, 'clob_not_found');
  if (found.length > 1) throw ValidationError.field('chain_id', 'is required: this CLOB is indexed on several networks');
  return found[0];
}

/** The per-part reads, one statement each. */
class StepReads {
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
  consistent<T>(fn: (m: EntityManager) => Promise<T>): Promise<T> {
    return this.db.transaction('REPEATABLE READ', fn);
  }
}

/** The four answers read in steps. */
export class ClobExploreInSteps {
  private readonly reads: StepReads;

  constructor(db: DataSource) {
    this.reads = new StepReads(db);
  }

  async pair(address: string, chainId?: number): Promise<PairRecord> {
    return onlyPair(await this.reads.pairs(address, chainId), address, chainId);
  }

  /** One CLOB at a glance: tokens, series with open interest, 1-day and 7-day activity, the last fill. */
  async overview(address: string, chainId?: number) {
    const p = await this.pair(address, chainId);
    return this.reads.consistent(async (m) => {
      const head = await this.reads.head(m, p.chain_id);
      const today = utcDay(Date.now());
      const from7 = utcDay(Date.now() - 6 * DAY_MS);
      // One connection, one snapshot: the queries run one after another.
      const series = await this.reads.series(m, p.chain_id, [p.address]);
      const perSeries7 = await this.reads.seriesTotals(m, p.chain_id, p.address, from7, today);
      const d1 = await this.reads.windowTotals(m, p.chain_id, p.address, today, today);
      const d7 = await this.reads.windowTotals(m, p.chain_id, p.address, from7, today);
      const traders7 = await this.reads.uniqueTraders(m, p.chain_id, p.address, from7, today);
      const last = await this.reads.activity(m, p.chain_id, p.address, { kinds: ['filled'] }, 1);
      const s7 = new Map(perSeries7.map((s) => [s.option_id, s]));
      const now = Math.floor(Date.now() / 1000);
      let oi = 0n;
      for (const s of series) oi += BigInt(s.open_interest);
      const window = (days: number, from: string, t: { fills: string | null; volume: string | null; premium_volume: string | null }) => ({
        days,
        from_day: from,
        to_day: today,
        fills: Number(t.fills ?? 0),
        volume: num(t.volume),
        premium_volume: num(t.premium_volume),
      });
      return {
        chain_id: p.chain_id,
        clob: p.address,
        token0: p.token0,
        token1: p.token1,
        premium_token: p.premium_token,
        created_block: Number(p.created_block),
        created_tx_hash: p.tx_hash,
        block: blockView(head),
        open_interest: oi.toString(),
        series: series.map((s) => {
          const f = seriesFields(s.option_id);
          const t = s7.get(s.option_id);
          return {
            ...f,
            expired: f.expiry_timestamp !== null && f.expiry_timestamp <= now,
            open_interest: s.open_interest,
            orders_placed: s.orders_placed,
            transfers: s.transfers,
            first_block: Number(s.first_block),
            fills_7d: Number(t?.fills ?? 0),
            volume_7d: num(t?.volume ?? null),
          };
        }),
        windows: [window(1, today, d1), { ...window(7, from7, d7), unique_traders: traders7.count, unique_traders_estimated: traders7.estimated }],
        last_fill: last[0] ? fillView(last[0]) : null,
      };
    });
  }

  /** A CLOB's book: per series, price levels of each side (best first), optionally with their orders. */
  async book(address: string, q: { chain_id?: number; option_id?: string; depth: number; include_orders: boolean }) {
    const p = await this.pair(address, q.chain_id);
    return this.reads.consistent(async (m) => {
      const { block, series } = await this.readBook(m, p, q.depth, q.option_id, q.include_orders);
      return { chain_id: p.chain_id, clob: p.address, block, depth: q.depth, series };
    });
  }

  /** The books of every CLOB of a chain, filtered by token, premium token, option type or expiry. */
  async chainBook(q: { chain_id: number; token?: string; premium_token?: string; option_type?: 'call' | 'put'; expiry_timestamp?: number; depth: number }) {
    const pairs = await this.reads.pairsOfChain(q.chain_id, { token: q.token, premiumToken: q.premium_token });
    return this.reads.consistent(async (m) => {
      const head = await this.reads.head(m, q.chain_id);
      const addresses = pairs.map((p) => p.address);
      const series = addresses.length === 0 ? [] : await this.reads.series(m, q.chain_id, addresses);
      const levels = addresses.length === 0 ? [] : await this.reads.levels(m, q.chain_id, addresses, q.depth);
      const keep = (b: SeriesBookView) =>
        (q.option_type === undefined || b.option_type === q.option_type) && (q.expiry_timestamp === undefined || b.expiry_timestamp === q.expiry_timestamp);
      return {
        chain_id: q.chain_id,
        block: blockView(head),
        depth: q.depth,
        clobs: pairs
          .map((p) => ({
            clob: p.address,
            token0: p.token0,
            token1: p.token1,
            premium_token: p.premium_token,
            series: seriesBooks(
              series.filter((s) => s.pair === p.address),
              levels.filter((l) => l.pair === p.address),
            ).filter(keep),
          }))
          .filter((c) => c.series.length > 0 || (q.option_type === undefined && q.expiry_timestamp === undefined)),
      };
    });
  }

  /** Per-day fills, volumes and traders over a window of UTC days (default: the last 30), with totals and open interest now. */
  async summary(address: string, q: { chain_id?: number; option_id?: string; from?: string; to?: string }) {
    const to = q.to ?? utcDay(Date.now());
    const from = q.from ?? utcDay(dayMs(to) - 29 * DAY_MS);
    if (dayMs(from) > dayMs(to)) throw ValidationError.field('from', 'must not be after to');
    if ((dayMs(to) - dayMs(from)) / DAY_MS >= 366) throw ValidationError.field('from', 'the window is at most 366 days');
    const p = await this.pair(address, q.chain_id);
    return this.reads.consistent(async (m) => {
      const head = await this.reads.head(m, p.chain_id);
      const days = await this.reads.days(m, p.chain_id, p.address, from, to, q.option_id);
      const totals = await this.reads.windowTotals(m, p.chain_id, p.address, from, to, q.option_id);
      const traders = await this.reads.uniqueTraders(m, p.chain_id, p.address, from, to);
      const series = await this.reads.series(m, p.chain_id, [p.address]);
      let oi = 0n;
      for (const s of series) if (q.option_id === undefined || s.option_id === q.option_id) oi += BigInt(s.open_interest);
      return {
        chain_id: p.chain_id,
        clob: p.address,
        block: blockView(head),
        option_id: q.option_id ?? null,
        from_day: from,
        to_day: to,
        totals: {
          fills: Number(totals.fills ?? 0),
          volume: num(totals.volume),
          premium_volume: num(totals.premium_volume),
          unique_traders: traders.count,
          unique_traders_estimated: traders.estimated,
        },
        open_interest: oi.toString(),
        days: days.map((d) => ({ day: d.day, fills: Number(d.fills), volume: d.volume, premium_volume: d.premium_volume, unique_traders: Number(d.traders) })),
      };
    });
  }

  private async readBook(m: EntityManager, p: PairRecord, depth: number, optionId: string | undefined, withOrders: boolean) {
    const head = await this.reads.head(m, p.chain_id);
    const series = await this.reads.series(m, p.chain_id, [p.address]);
    const levels = await this.reads.levels(m, p.chain_id, [p.address], depth, optionId);
    const listed = optionId === undefined ? series : series.filter((s) => s.option_id === optionId);
    const orders = withOrders ? await this.reads.bookOrders(m, p.chain_id, p.address, levels, 500) : undefined;
    return { block: blockView(head), series: seriesBooks(listed, levels, orders) };
  }
}
