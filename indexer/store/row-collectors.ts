import type { Hex } from '../rpc/rpc';
import type {
  BalanceChange,
  BalanceDelta,
  BlockSpan,
  DailyBatch,
  FillStat,
  LoanBatch,
  LoanChange,
  LoanEventRow,
  LoanProjection,
  LoanRow,
  LoanUpdate,
  OrderBatch,
  OrderEvent,
  OrderRow,
  OrderUpdate,
  RowPosition,
  SeriesChange,
  SeriesDelta,
  TraderDay,
} from '../types';

/**
 * How the rows one batch projected into a table combine before the table's write (pure: no
 * I/O): each `DERIVED_TABLES` entry names its collector (derived-tables.ts), so a batch writes
 * each row once however many logs touched it.
 */

/**
 * Gathers the rows one batch projects into one table, as the logs are projected (so a row
 * folded into another is garbage at once, not held to the end of the batch), into what the
 * table's write takes.
 */
export interface RowCollector<R, B> {
  add(row: R): void;
  done(): B;
}

/** Rows written one per log, in chain order. */
export const inChainOrder =
  <R>() =>
  (): RowCollector<R, R[]> => {
    const rows: R[] = [];
    return {
      add: (row) => void rows.push(row),
      done: () => rows,
    };
  };

/** The lowest and highest block of the rows added (null when none was): where a batch's activity lies. */
export function blockSpan(): RowCollector<RowPosition, BlockSpan | null> {
  let span: BlockSpan | null = null;
  return {
    add(at) {
      if (!span) span = { from: at.block_number, to: at.block_number };
      else {
        if (at.block_number < span.from) span.from = at.block_number;
        if (at.block_number > span.to) span.to = at.block_number;
      }
    },
    done: () => span,
  };
}

/**
 * Folds a batch's balance changes into one net delta per (holder, pair, id), so a batch writes
 * each balance row once however many transfers touched it. A zero net delta is kept: the holder
 * held the id, which the portfolio lists as closed.
 */
export function netBalances(): RowCollector<BalanceChange, BalanceDelta[]> {
  const byKey = new Map<string, Omit<BalanceDelta, 'delta'> & { value: bigint }>();
  return {
    add(c) {
      const key = `${c.holder}|${c.pair}|${c.option_id}`;
      const b = byKey.get(key);
      if (b) {
        b.value += c.delta;
        b.last_block = c.block;
      } else {
        byKey.set(key, { holder: c.holder, pair: c.pair, option_id: c.option_id, value: c.delta, first_block: c.block, last_block: c.block });
      }
    },
    done() {
      const out: BalanceDelta[] = [];
      for (const b of byKey.values()) {
        out.push({ holder: b.holder, pair: b.pair, option_id: b.option_id, delta: b.value.toString(), first_block: b.first_block, last_block: b.last_block });
      }
      return out;
    },
  };
}

/**
 * Folds a batch's order events into each order's final state: an order placed in the batch is
 * written once in the state its later changes leave it; an older order gets one update.
 */
export function finalOrderStates(): RowCollector<OrderEvent, OrderBatch> {
  const placed = new Map<string, OrderRow>();
  const updated = new Map<string, OrderUpdate>();
  return {
    add(e) {
      if ('placed' in e) {
        // A copy: the changes below update it, and the projector's row stays as it was made.
        placed.set(`${e.placed.pair}|${e.placed.order_id}`, { ...e.placed });
        return;
      }
      const c = e.change;
      const key = `${c.pair}|${c.order_id}`;
      const row = placed.get(key) ?? updated.get(key);
      if (!row) {
        updated.set(key, { ...c });
        return;
      }
      row.remaining = c.remaining;
      row.state = c.state;
      row.last_block = c.last_block;
      row.last_log_index = c.last_log_index;
    },
    done: () => ({ placed: [...placed.values()], updates: [...updated.values()] }),
  };
}

/**
 * Folds a batch's loan changes: a loan opened in the batch is written once in the state its later
 * events leave it; an older loan gets one update, its interest summed.
 */
export function finalLoanStates(): RowCollector<LoanProjection, LoanBatch> {
  const opened = new Map<string, LoanRow>();
  const updated = new Map<string, LoanUpdate>();
  const apply = (row: LoanRow | LoanUpdate, c: LoanChange) => {
    if (c.collateral_amount !== null) row.collateral_amount = c.collateral_amount;
    if (c.principal_outstanding !== null) row.principal_outstanding = c.principal_outstanding;
    row.interest_paid = (BigInt(row.interest_paid) + BigInt(c.interest_paid)).toString();
    row.state = c.state;
    row.last_block = c.last_block;
    row.last_log_index = c.last_log_index;
    row.closed_at = c.closed_at;
  };
  return {
    add(p) {
      if ('opened' in p) {
        opened.set(`${p.opened.market}|${p.opened.loan_id}`, { ...p.opened });
        return;
      }
      const key = `${p.change.market}|${p.change.loan_id}`;
      const row = opened.get(key) ?? updated.get(key);
      if (row) apply(row, p.change);
      else updated.set(key, { ...p.change });
    },
    done: () => ({ opened: [...opened.values()], updates: [...updated.values()] }),
  };
}

/** Loan events one per log, each completed with its loan's parties when the batch opened it. */
export function loanEventsWithParties(): RowCollector<LoanEventRow, LoanEventRow[]> {
  const rows: LoanEventRow[] = [];
  const parties = new Map<string, Pick<LoanEventRow, 'borrower' | 'lender' | 'collateral_token' | 'debt_token'>>();
  return {
    add(row) {
      const key = `${row.market}|${row.loan_id}`;
      if (row.kind === 'opened')
        parties.set(key, { borrower: row.borrower, lender: row.lender, collateral_token: row.collateral_token, debt_token: row.debt_token });
      const known = row.borrower === null ? parties.get(key) : undefined;
      rows.push(known ? { ...row, ...known } : row);
    },
    done: () => rows,
  };
}

/** The UTC day of unix seconds, as Postgres reads a `date`. */
export const utcDay = (unixSeconds: number): string => new Date(unixSeconds * 1000).toISOString().slice(0, 10);

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
