import type { DataSource, EntityManager } from 'typeorm';
import { NotFoundError, ValidationError } from '../../platform/errors';
import { toPage, type Page } from '../../platform/pagination';
import type { ActivityKind } from './clob-explore.schemas';
import type { PairRecord } from '../../indexed';
import { ClobExploreRepository, type ActivityFilter, type WindowTotals } from './clob-explore.repository';
import {
  activityView,
  blockView,
  fillView,
  seriesBooks,
  seriesFields,
  type ActivityView,
  type BlockView,
  type FillView,
  type SeriesBookView,
} from './clob-explore.views';

const DAY_MS = 86_400_000;
const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const dayMs = (day: string) => Date.parse(`${day}T00:00:00Z`);
const num = (v: string | null) => v ?? '0';

/** The one network's pair among those that indexed `address`: 404 when none did; 400 naming chain_id when several did. */
function onlyPair(found: readonly PairRecord[], address: string, chainId?: number): PairRecord {
  if (found.length === 0) throw new NotFoundError(`clob ${address} is not indexed${chainId ? ` on chain ${chainId}` : ''}`, 'clob_not_found');
  if (found.length > 1) throw ValidationError.field('chain_id', 'is required: this CLOB is indexed on several networks');
  return found[0];
}

/** What lists filter on (docs/EXPLORE.md). */
export interface ListFilters {
  chain_id?: number;
  option_id?: string;
  address?: string;
  since?: number;
  until?: number;
  cursor?: readonly [number, number];
  limit: number;
}

/** How many activity lines a snapshot carries, and book levels per side. */
const SNAPSHOT_ACTIVITY = 50;
const SNAPSHOT_DEPTH = 20;
/** At most this many orders per series and side in a book with orders. */
const BOOK_ORDERS = 500;

/**
 * Explore for CLOBs: overview, book, activity, fills and summary of a pair (CLOB) from the
 * indexer's tables, and the snapshot its live stream opens with. Reads only; the indexer writes.
 */
export class ClobExploreService {
  private readonly repo: ClobExploreRepository;

  constructor(db: DataSource) {
    this.repo = new ClobExploreRepository(db);
  }

  /** The indexed pair at `address`: 404 when no network indexed it; 400 naming chain_id when several did. */
  async pair(address: string, chainId?: number): Promise<PairRecord> {
    return onlyPair(await this.repo.pairs(address, chainId), address, chainId);
  }

  /** One CLOB at a glance: tokens, series with open interest, 1-day and 7-day activity, the last fill. One statement: one snapshot. */
  async overview(address: string, chainId?: number) {
    const today = utcDay(Date.now());
    const from7 = utcDay(Date.now() - 6 * DAY_MS);
    const r = await this.repo.overviewOfPair(address, chainId, from7, today);
    const p = onlyPair(r.pairs, address, chainId);
    const s7 = new Map(r.series_totals.map((s) => [s.option_id, s]));
    const now = Math.floor(Date.now() / 1000);
    let oi = 0n;
    for (const s of r.series) oi += BigInt(s.open_interest);
    const window = (days: number, from: string, t: WindowTotals) => ({
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
      block: blockView(r.head),
      open_interest: oi.toString(),
      series: r.series.map((s) => {
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
      windows: [
        window(1, today, r.last_day),
        { ...window(7, from7, r.window_totals), unique_traders: r.traders.count, unique_traders_estimated: r.traders.estimated },
      ],
      last_fill: r.last_fill ? fillView(r.last_fill) : null,
    };
  }

  /** A CLOB's book: per series, price levels of each side (best first), optionally with their orders. */
  async book(address: string, q: { chain_id?: number; option_id?: string; depth: number; include_orders: boolean }) {
    // One statement: the pair, its head, series and levels, and the orders of the levels when asked for, on one snapshot.
    const r = await this.repo.bookOfPair(address, q.chain_id, q.depth, q.option_id, q.include_orders ? BOOK_ORDERS : undefined);
    const p = onlyPair(r.pairs, address, q.chain_id);
    const listed = q.option_id === undefined ? r.series : r.series.filter((s) => s.option_id === q.option_id);
    return { chain_id: p.chain_id, clob: p.address, block: blockView(r.head), depth: q.depth, series: seriesBooks(listed, r.levels, r.orders) };
  }

  /** The books of every CLOB of a chain, filtered by token, premium token, option type or expiry. */
  async chainBook(q: { chain_id: number; token?: string; premium_token?: string; option_type?: 'call' | 'put'; expiry_timestamp?: number; depth: number }) {
    // One statement: the pairs, the head, the series and the levels on one snapshot.
    const { pairs, head, series, levels } = await this.repo.chainBook(q.chain_id, { token: q.token, premiumToken: q.premium_token }, q.depth);
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
  }

  /** Activity of a CLOB, newest first, one page. */
  async activity(address: string, q: ListFilters & { type?: ActivityKind[] }): Promise<Page<ActivityView>> {
    const rows = await this.listOfPair(address, q, q.type);
    return toPage(rows, q.limit, (r) => [Number(r.block_number), r.log_index], activityView);
  }

  /** Fills of a CLOB, newest first, one page. */
  async fills(address: string, q: ListFilters): Promise<Page<FillView>> {
    const rows = await this.listOfPair(address, q, ['filled']);
    return toPage(rows, q.limit, (r) => [Number(r.block_number), r.log_index], fillView);
  }

  /**
   * One page of a pair's activity in one statement, the pair found inside it. An empty page
   * asks the pair on its own, so an unknown CLOB is still a 404 and an ambiguous one a 400; and
   * a refused filter is judged after the pair, in the order the routes always answered.
   */
  private async listOfPair(address: string, q: ListFilters, kinds?: ActivityKind[]) {
    let filter: ActivityFilter;
    try {
      filter = this.filter(q, kinds);
    } catch (err) {
      await this.pair(address, q.chain_id);
      throw err;
    }
    const rows = await this.repo.activityOfPair(address, q.chain_id, filter, q.limit + 1);
    if (rows.length === 0) await this.pair(address, q.chain_id);
    return rows;
  }

  /** Per-day fills, volumes and traders over a window of UTC days (default: the last 30), with totals and open interest now. */
  async summary(address: string, q: { chain_id?: number; option_id?: string; from?: string; to?: string }) {
    const to = q.to ?? utcDay(Date.now());
    const from = q.from ?? utcDay(dayMs(to) - 29 * DAY_MS);
    if (dayMs(from) > dayMs(to)) throw ValidationError.field('from', 'must not be after to');
    if ((dayMs(to) - dayMs(from)) / DAY_MS >= 366) throw ValidationError.field('from', 'the window is at most 366 days');
    // One statement: one snapshot.
    const r = await this.repo.summaryOfPair(address, q.chain_id, from, to, q.option_id);
    const p = onlyPair(r.pairs, address, q.chain_id);
    return {
      chain_id: p.chain_id,
      clob: p.address,
      block: blockView(r.head),
      option_id: q.option_id ?? null,
      from_day: from,
      to_day: to,
      totals: {
        fills: Number(r.totals.fills ?? 0),
        volume: num(r.totals.volume),
        premium_volume: num(r.totals.premium_volume),
        unique_traders: r.traders.count,
        unique_traders_estimated: r.traders.estimated,
      },
      open_interest: r.open_interest,
      days: r.days.map((d) => ({ day: d.day, fills: Number(d.fills), volume: d.volume, premium_volume: d.premium_volume, unique_traders: Number(d.traders) })),
    };
  }

  /** What a live stream opens with: the book and the latest activity, and the block both reflect. */
  async snapshot(
    chainId: number,
    address: string,
  ): Promise<{ chain_id: number; clob: string; block: BlockView; book: SeriesBookView[]; activity: ActivityView[] }> {
    const p = await this.pair(address, chainId);
    return this.repo.consistent(async (m) => {
      const { block, series } = await this.readBook(m, p, SNAPSHOT_DEPTH);
      const activity = await this.repo.activity(m, p.chain_id, p.address, {}, SNAPSHOT_ACTIVITY);
      return { chain_id: p.chain_id, clob: p.address, block, book: series, activity: activity.map(activityView) };
    });
  }

  private async readBook(m: EntityManager, p: PairRecord, depth: number) {
    const head = await this.repo.head(m, p.chain_id);
    const series = await this.repo.series(m, p.chain_id, [p.address]);
    const levels = await this.repo.levels(m, p.chain_id, [p.address], depth);
    return { block: blockView(head), series: seriesBooks(series, levels) };
  }

  private filter(q: ListFilters, kinds?: ActivityKind[]): ActivityFilter {
    if (q.since !== undefined && q.until !== undefined && q.since >= q.until) throw ValidationError.field('since', 'must be before until');
    return { kinds, optionId: q.option_id, address: q.address, since: q.since, until: q.until, before: q.cursor };
  }
}
