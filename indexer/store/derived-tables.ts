import type { BondEventRow, EventRow, ExclusiveFillUseRow, OrderIntentRow, PairRow, PriceRow, SettlementRow, TransferRow } from '../types';
import { reopenDutchPhases } from '../../shared/dutch';
import { reopenFilledQuotes } from '../../shared/quotes';
import { reopenChainClosedOrders, revertUsedFills } from '../../shared/orders';
import { writeBondEvents, writeFillUses, writeOrderIntents } from './order-writer';
import type { Hex } from '../rpc/rpc';
import { settle, writeBalances, writeEvents, writeOrders, writePairs, writeTransfers, type FilledQuote } from './changeset-writer';
import { rollbackLoans, rollbackPrices, writeLoanEvents, writeLoans, writePrices, type LoanWriteEffects } from './loan-writer';
import { exec, type Queryable } from './sql';
import {
  blockSpan,
  dailyRollups,
  finalLoanStates,
  finalOrderStates,
  inChainOrder,
  loanEventsWithParties,
  netBalances,
  seriesChanges,
  type RowCollector,
} from './row-collectors';
import { rollbackDaily, rollbackSeries, rollbackTraders, writeActivity, writeDaily, writeSeries } from './clob-explore-store';

/** A quote reopened because the settlement that filled it was rolled back. */
export interface ReopenedQuote {
  quote_id: string;
  state: 'open' | 'expired';
  stream_token_hash: string;
  taker_address_hash: Hex;
  /** The maker whose settlement vanished: it heard the fill, so it hears the reopening. */
  maker: Hex;
}

/** What a rollback changed that clients must hear about (published after commit). */
export interface RollbackEffects {
  reopened: ReopenedQuote[];
  /** Pairs (CLOBs) with events or transfers above the ancestor: their explore watchers hear of the reorg. */
  pairs: string[];
  /** Tokens whose prices above the ancestor went: their loans' health is recomputed. */
  loanTokens: string[];
  /** Whether any loan or price row was undone: loan stream watchers hear of the reorg. */
  loans: boolean;
}

/** What a batch's writes changed that clients must hear about (published after commit). */
export interface WriteEffects {
  filled: FilledQuote[];
  /** Tokens repriced and loans whose health crossed the at-risk line. */
  loans: LoanWriteEffects;
}

type Rollback = (m: Queryable, chainId: number, at: number, effects: RollbackEffects) => Promise<void>;

/**
 * One table the indexer derives from logs, and how its rows above block `at` are undone. The
 * rollback of a reorg, of an operator's resync and the reset of a network all run this list in
 * order, in one transaction; nothing else decides what a rollback covers.
 */
interface DerivedTableBase<N extends string> {
  table: N;
  /** What its rows are, for the reader of this list (the events feeding it name it in INDEXED_EVENTS). */
  holds: string;
  rollback: Rollback;
  /** Where it must sit in the list relative to other tables, when anywhere will not do. */
  order?: TableOrder;
}

/**
 * The ordering constraints of one entry, as data: the list runs rollbacks (and a batch's writes)
 * in its order, and `rollbackOrderProblems` (checked by test/unit/indexer/derived-tables-order.test.ts,
 * and against the schema's foreign keys by test/integration/indexer/derived-tables-order.test.ts)
 * fails when the list breaks one. Names are other entries' tables.
 */
export interface TableOrder {
  /** Tables whose rollback must run after this one's: this rollback reads their rows above the point, which theirs deletes. */
  rollsBackBefore?: readonly string[];
  /** Tables whose rollback must run before this one's: this rollback reads what theirs leaves. */
  rollsBackAfter?: readonly string[];
  /** Tables whose write must run before this one's in a batch: this write reads what theirs wrote. */
  writesAfter?: readonly string[];
  /** Why, for the reader. */
  why: string;
}

/**
 * A table projectors put rows in (`{table, row}`): the rows one batch projects into it, in
 * chain order, go to a fresh collector (`collect()`, pure) whose result `write` writes, in the
 * batch's transaction.
 */
export interface ProjectedTable<N extends string, R, B> extends DerivedTableBase<N> {
  collect(): RowCollector<R, B>;
  write(m: Queryable, chainId: number, batch: B, effects: WriteEffects): Promise<void>;
  /**
   * Its write only inserts the batch's own log-keyed rows and reads no other row (no conflict
   * clause, no join, no effect): it runs first in the batch's transaction, before the cursor's
   * compare-and-set, so it overlaps the previous batch's commit (the backfill pipeline,
   * indexer/sync/tailer/write-backfill.ts); every other write runs after the cursor moved and sees
   * that commit. It may not be ordered after another table's write.
   */
  ownRowsOnly?: true;
}

/** A table only another table's write changes (quotes, filled by settlements); it still rolls back. */
export type EffectTable<N extends string> = DerivedTableBase<N>;

const projected = <const N extends string, R, B>(t: ProjectedTable<N, R, B>) => t;
const effect = <const N extends string>(t: EffectTable<N>) => t;

const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';

/** Deletes the rows of a log-keyed table above `at`; the column leads the primary key (or an index). */
const byHeight =
  (table: string, column: string) =>
  async (m: Queryable, chainId: number, at: number): Promise<void> => {
    await m.query(`DELETE FROM ${table} WHERE chain_id = $1 AND ${column} > $2`, [chainId, at]);
  };

/**
 * The rollback of a read model that statement triggers keep from its source table (migration
 * SummaryReadModels1764007700000): the source's own rollback (deletes and updates) fires them,
 * in the same transaction, so nothing is left to undo here. The entry is listed so indexed
 * events can name the table and the rollback test checks it comes back row for row.
 */
async function keptByTriggers(): Promise<void> {}

/**
 * Every table the indexer writes that holds chain-derived data, in the order their rollback
 * must run; a batch's writes run in the same order. Each entry's `order` says which other
 * tables it must come before or after, and a test fails when the list breaks one of those, or
 * a foreign key of the schema (a referencing table rolls back before the table it references).
 * Indexed events name the tables their rows go to (`INDEXED_EVENTS`, indexer/chain-events/); a test fails
 * when one is missing here.
 */
export const DERIVED_TABLES = [
  projected({
    table: 'indexer_balances',
    holds: 'net balance per holder, pair and option id',
    collect: netBalances,
    write: writeBalances,
    rollback: revertBalances,
    order: { rollsBackBefore: ['indexer_transfers'], why: 'balances are reverted by the orphaned transfers, read before they are deleted' },
  }),
  effect({
    table: 'quotes',
    holds: 'state filled and fill_tx_hash, written by the settlements',
    rollback: reopenQuotes,
    order: { rollsBackBefore: ['indexer_settlements'], why: 'the quotes to reopen are those the orphaned settlements filled' },
  }),
  projected({
    table: 'indexer_events',
    holds: 'every log read except transfers, as read',
    collect: inChainOrder<EventRow>(),
    write: writeEvents,
    ownRowsOnly: true,
    rollback: collectPairsThenDelete,
    order: {
      rollsBackBefore: ['indexer_pairs', 'indexer_transfers'],
      why: 'the explore notices name the pairs of the orphaned events and transfers, read while both are there',
    },
  }),
  projected({
    table: 'indexer_transfers',
    holds: 'ERC-6909 transfers',
    collect: inChainOrder<TransferRow>(),
    write: writeTransfers,
    ownRowsOnly: true,
    rollback: byHeight('indexer_transfers', 'block_number'),
  }),
  projected({
    table: 'indexer_settlements',
    holds: 'package settlements, with the quote each filled',
    collect: inChainOrder<SettlementRow>(),
    // The settlements fill their quotes (the `quotes` entry undoes that).
    write: async (m, chainId, rows, effects) => {
      effects.filled.push(...(await settle(m, chainId, rows)));
    },
    rollback: byHeight('indexer_settlements', 'block_number'),
  }),
  projected({
    table: 'indexer_pairs',
    holds: 'pairs the factory created',
    collect: inChainOrder<PairRow>(),
    write: writePairs,
    rollback: byHeight('indexer_pairs', 'created_block'),
  }),
  projected({
    table: 'indexer_orders',
    holds: 'book orders in their latest state',
    collect: finalOrderStates,
    write: writeOrders,
    rollback: rollbackOrders,
    order: { rollsBackAfter: ['indexer_events'], why: 'orders touched above the point are recomputed from the events that survive' },
  }),
  // Explore's CLOB read models.
  effect({
    table: 'indexer_clob_levels',
    holds: 'open size and order count per pair, series, side and price: the sums of the open indexer_orders',
    rollback: keptByTriggers,
  }),
  projected({
    table: 'indexer_clob_series',
    holds: 'series each pair listed or minted, with open interest',
    collect: seriesChanges,
    write: writeSeries,
    rollback: rollbackSeries,
    order: { rollsBackBefore: ['indexer_clob_activity'], why: 'its rollback subtracts what the orphaned activity rows added' },
  }),
  projected({
    table: 'indexer_clob_daily',
    holds: 'fills, volume and premium volume per pair, UTC day and series (its write also counts indexer_clob_traders)',
    collect: dailyRollups,
    write: writeDaily,
    rollback: rollbackDaily,
    order: { rollsBackBefore: ['indexer_clob_activity'], why: 'its rollback subtracts what the orphaned activity rows added' },
  }),
  effect({
    table: 'indexer_clob_traders',
    holds: 'fills per pair, UTC day and trader, written with indexer_clob_daily',
    rollback: rollbackTraders,
    order: { rollsBackBefore: ['indexer_clob_activity'], why: 'its rollback subtracts what the orphaned activity rows added' },
  }),
  effect({
    table: 'indexer_clob_pair_daily',
    holds: 'fills, volumes and distinct traders per pair and UTC day: the sums of indexer_clob_daily and indexer_clob_traders',
    rollback: keptByTriggers,
  }),
  effect({
    table: 'indexer_clob_trader_sketch',
    holds: 'a HyperLogLog sketch of the distinct traders per pair and UTC day, rebuilt from indexer_clob_traders for each day a statement touches',
    rollback: keptByTriggers,
  }),
  projected({
    table: 'indexer_clob_activity',
    holds: 'orders placed, filled, cancelled and transfers per pair, with series and side',
    // Projectors name the logs that make activity; their rows are derived in SQL from the events and transfers already written.
    collect: blockSpan,
    write: writeActivity,
    rollback: byHeight('indexer_clob_activity', 'block_number'),
    order: {
      writesAfter: ['indexer_orders', 'indexer_events', 'indexer_transfers'],
      why: "its rows are derived from the batch's events and transfers; fills and cancels take their order's series and side from the order book",
    },
  }),
  projected({
    table: 'indexer_prices',
    holds: 'oracle price updates, as read',
    collect: inChainOrder<PriceRow>(),
    write: (m, chainId, rows, effects) => writePrices(m, chainId, rows, effects.loans),
    rollback: rollbackPrices,
  }),
  projected({
    table: 'indexer_loans',
    holds: 'loans in their latest state, with the health factor the latest prices give them',
    collect: finalLoanStates,
    write: (m, chainId, batch, effects) => writeLoans(m, chainId, batch, effects.loans),
    rollback: rollbackLoans,
    order: {
      writesAfter: ['indexer_prices'],
      rollsBackAfter: ['indexer_prices'],
      rollsBackBefore: ['indexer_loan_events'],
      why: "health reads the latest prices (the surviving ones in a rollback, whose tokens the prices' rollback notes); a rolled-back loan's state is rebuilt from its events",
    },
  }),
  effect({
    table: 'indexer_loan_token_totals',
    holds: 'active loans, amount and rate sum per token as debt and as collateral: the sums of indexer_loans',
    rollback: keptByTriggers,
  }),
  effect({
    table: 'indexer_loan_health_counts',
    holds: 'active loans below the at-risk and the liquidation lines per network: counts of indexer_loans',
    rollback: keptByTriggers,
  }),
  projected({
    table: 'indexer_loan_events',
    holds: "loan events (opened, collateral in and out, repaid, liquidated) with their loan's parties",
    collect: loanEventsWithParties,
    write: writeLoanEvents,
    rollback: byHeight('indexer_loan_events', 'block_number'),
    order: { writesAfter: ['indexer_loans'], why: 'the parties of a loan opened in an earlier batch are read from the loans' },
  }),
  effect({ table: 'exclusive_fills', holds: 'state used and used_tx_hash, written by the fill uses', rollback: revertUsedFills }),
  effect({
    table: 'orders',
    holds: 'state filled, written by the fill uses',
    rollback: reopenChainClosedOrders,
    order: { rollsBackAfter: ['exclusive_fills'], why: "whether a reopened order stays held depends on its fill's state, reverted first" },
  }),
  projected({
    table: 'indexer_exclusive_fill_uses',
    holds: 'exclusive fills used on chain; each marks its fill used and its orders filled',
    collect: inChainOrder<ExclusiveFillUseRow>(),
    write: writeFillUses,
    rollback: byHeight('indexer_exclusive_fill_uses', 'block_number'),
  }),
  projected({
    table: 'indexer_order_intents',
    holds: 'API-recorded orders their owners placed, with the book order each became',
    collect: inChainOrder<OrderIntentRow>(),
    write: writeOrderIntents,
    rollback: byHeight('indexer_order_intents', 'block_number'),
  }),
  projected({
    table: 'indexer_bond_events',
    holds:
      'BondVault deposits, withdrawal requests and withdrawals; the latest per maker and token carries its bond, the latest request or withdrawal what is pending',
    collect: inChainOrder<BondEventRow>(),
    write: writeBondEvents,
    rollback: byHeight('indexer_bond_events', 'block_number'),
  }),
  // Written by the commit of each batch once its last block's time passed awarded quotes' exclusive ends (shared/dutch, decideExclusiveWindows).
  effect({
    table: 'dutch_exclusive_outcomes',
    holds: "awarded Dutch quotes whose exclusive window the chain's time passed, and whether their winner faded; keyed by the deciding block",
    rollback: byHeight('dutch_exclusive_outcomes', 'decided_block'),
  }),
] as const;

type Table = (typeof DERIVED_TABLES)[number];
type Projected = Extract<Table, { collect: unknown }>;

/** Every table a rollback clears: what an indexed event may name as its tables. */
export type DerivedTableName = Table['table'];

/** A projector's output: one row for one table that takes projected rows. */
export type ProjectedRow = { [T in Projected as T['table']]: { table: T['table']; row: Parameters<ReturnType<T['collect']>['add']>[0] } }[Projected['table']];

/** What a batch of logs changes: per table that takes projected rows, what its `collect` made of them. */
export type Changeset = { [T in Projected as T['table']]: ReturnType<ReturnType<T['collect']>['done']> };

const PROJECTED: readonly Projected[] = DERIVED_TABLES.filter((t): t is Projected => 'collect' in t);

/** Fresh collectors, one per table that takes projected rows, for one batch: `add` rows as projected, then `done`. */
export function startChangeset(): { add(row: ProjectedRow): void; done(): Changeset } {
  const collectors = new Map<string, RowCollector<unknown, unknown>>(PROJECTED.map((t) => [t.table, t.collect() as RowCollector<unknown, unknown>]));
  return {
    add: (p) => collectors.get(p.table)!.add(p.row),
    done() {
      const out: Record<string, unknown> = {};
      for (const [table, c] of collectors) out[table] = c.done();
      return out as Changeset;
    },
  };
}

type Write = (m: Queryable, c: number, b: unknown, e: WriteEffects) => Promise<void>;

const noEffects = (): WriteEffects => ({ filled: [], loans: { repricedTokens: new Set(), crossings: [], lastBlock: null } });

/**
 * Writes the rows of the tables marked `ownRowsOnly` (the events and transfers, most of a
 * batch's rows): what a batch's transaction may write before its cursor moves.
 */
export async function writeOwnRows(m: Queryable, chainId: number, changes: Changeset): Promise<void> {
  for (const t of PROJECTED) if ('ownRowsOnly' in t && t.ownRowsOnly) await (t.write as Write)(m, chainId, changes[t.table], noEffects());
}

/**
 * Writes every table's rows of a changeset, in one transaction the caller holds (`ownRowsWritten`:
 * all but those `writeOwnRows` wrote already); returns the quotes it filled and the loans' health crossings.
 */
export async function writeDerived(m: Queryable, chainId: number, changes: Changeset, opts: { ownRowsWritten?: boolean } = {}): Promise<WriteEffects> {
  const effects = noEffects();
  for (const t of PROJECTED) {
    if (opts.ownRowsWritten && 'ownRowsOnly' in t && t.ownRowsOnly) continue;
    await (t.write as Write)(m, chainId, changes[t.table], effects);
  }
  return effects;
}

/** A foreign key of the schema: table `from` references table `to`. */
export interface ForeignKey {
  from: string;
  to: string;
  name: string;
}

/**
 * What is wrong with the order of a list of derived tables: a table listed twice, a constraint
 * naming a table not in the list (or, for writes, one without a write), every entry's `order`
 * it breaks, and every foreign key between two of its tables whose referencing table does not
 * roll back first (the referenced rows could not be deleted under it). Empty when sound.
 */
export function rollbackOrderProblems(
  tables: readonly { table: string; order?: TableOrder; write?: unknown; ownRowsOnly?: true }[],
  foreignKeys: readonly ForeignKey[] = [],
): string[] {
  const problems: string[] = [];
  const index = new Map<string, number>();
  tables.forEach((t, i) => {
    if (index.has(t.table)) problems.push(`${t.table} is listed twice`);
    else index.set(t.table, i);
  });
  const writes = new Set(tables.filter((t) => t.write !== undefined).map((t) => t.table));
  const check = (self: string, i: number, other: string, rule: keyof Omit<TableOrder, 'why'>) => {
    const j = index.get(other);
    if (j === undefined || other === self)
      return void problems.push(`${self}: ${rule} names ${other === self ? 'itself' : `${other}, which is not in the list`}`);
    if (rule === 'writesAfter' && !(writes.has(self) && writes.has(other)))
      return void problems.push(`${self}: ${rule} names ${other}, but only tables with a write are ordered by it`);
    const mustBeFirst = rule === 'rollsBackBefore';
    if (mustBeFirst ? i > j : i < j) problems.push(`${self} must come ${mustBeFirst ? 'before' : 'after'} ${other} (${rule})`);
  };
  tables.forEach((t, i) => {
    if (index.get(t.table) !== i) return; // a second listing: reported above
    for (const other of t.order?.rollsBackBefore ?? []) check(t.table, i, other, 'rollsBackBefore');
    for (const other of t.order?.rollsBackAfter ?? []) check(t.table, i, other, 'rollsBackAfter');
    for (const other of t.order?.writesAfter ?? []) check(t.table, i, other, 'writesAfter');
    // Its write runs before every other one (ownRowsOnly): it cannot wait for another's.
    if (t.ownRowsOnly && (t.order?.writesAfter ?? []).length > 0)
      problems.push(`${t.table}: ownRowsOnly, so its write cannot come after another's (writesAfter)`);
  });
  for (const fk of foreignKeys) {
    const from = index.get(fk.from);
    const to = index.get(fk.to);
    if (from === undefined || to === undefined || fk.from === fk.to) continue;
    if (from > to) problems.push(`${fk.from} must come before ${fk.to} (foreign key ${fk.name}: it references ${fk.to})`);
  }
  return problems;
}

/**
 * Tables the indexer writes that are not derived from logs: its own bookkeeping, each moved by
 * the store itself in the same transaction as the derived rows (or, for status, on its own).
 */
export const BOOKKEEPING_TABLES: Readonly<Record<string, string>> = {
  indexer_cursors: 'the last block fully indexed; moves by compare-and-set with every write and rollback',
  indexer_blocks: 'the linked window of recent headers; trimmed to the ancestor by every rollback',
  indexer_checkpoints: 'older block hashes for deep ancestor searches; deleted above the ancestor by every rollback',
  indexer_status: 'the heartbeat; not chain data',
  indexer_reorg_stats: 'counts of reorgs seen; written by the rollback of a reorg',
  indexer_resync_requests: 'operator requests; closed by the rollback that performs them',
  indexer_leases: 'which indexer process writes the network (holder, fencing token, expiry); not chain data',
};

/**
 * Subtracts what orphaned transfers (those above `at`) added to balances, removes balance rows
 * those transfers created, and gives the rows that stay the block of their last surviving
 * transfer (what a fresh indexer would have written). Every statement finds its rows through
 * primary keys or the transfers' pair index, so the cost follows the rollback's size.
 */
async function revertBalances(m: Queryable, chainId: number, at: number): Promise<void> {
  const deltas = `
    WITH gone AS (
      SELECT pair, sender, receiver, option_id, amount FROM indexer_transfers WHERE chain_id = $1 AND block_number > $2
    ), deltas AS (
      SELECT receiver AS holder, pair, option_id, -amount AS d FROM gone WHERE receiver <> $3
      UNION ALL
      SELECT sender, pair, option_id, amount FROM gone WHERE sender <> $3
    ), agg AS (
      SELECT holder, pair, option_id, sum(d) AS d FROM deltas GROUP BY holder, pair, option_id
    )`;
  const params = [chainId, at, ZERO_ADDRESS];
  await m.query(
    `${deltas} DELETE FROM indexer_balances b USING agg
      WHERE b.chain_id = $1 AND b.holder = agg.holder AND b.pair = agg.pair AND b.option_id = agg.option_id AND b.first_block > $2`,
    params,
  );
  await m.query(
    `${deltas} UPDATE indexer_balances b
        SET balance = b.balance + agg.d,
            updated_block = COALESCE(
              (SELECT max(t.block_number) FROM indexer_transfers t
                WHERE t.chain_id = $1 AND t.pair = b.pair AND t.block_number <= $2 AND t.option_id = b.option_id
                  AND (t.sender = b.holder OR t.receiver = b.holder)),
              LEAST(b.updated_block, $2))
       FROM agg WHERE b.chain_id = $1 AND b.holder = agg.holder AND b.pair = agg.pair AND b.option_id = agg.option_id`,
    params,
  );
}

/**
 * Quotes filled by settlements above `at` are open again, or expired when their window has
 * passed (the quote state module decides which). Their settlements are deleted with the other
 * log rows afterwards.
 */
async function reopenQuotes(m: Queryable, chainId: number, at: number, effects: RollbackEffects): Promise<void> {
  const { rows: gone } = await exec<{ quote_id: string; maker: Hex }>(
    m,
    `SELECT quote_id, maker FROM indexer_settlements WHERE chain_id = $1 AND block_number > $2 AND quote_id IS NOT NULL`,
    [chainId, at],
  );
  const makerOf = new Map(gone.map((g) => [g.quote_id, g.maker]));
  // A Dutch quote's phase first: that statement picks the quotes still filled.
  await reopenDutchPhases(m, [...makerOf.keys()]);
  const reopened = await reopenFilledQuotes(m, [...makerOf.keys()]);
  effects.reopened.push(...reopened.map((q) => ({ ...q, maker: makerOf.get(q.quote_id) as Hex })));
}

/**
 * Notes the pairs whose events or transfers are above `at` (their explore watchers hear of the
 * rollback), then deletes the events. A pair event is one a known pair emitted: pairs are still
 * all there (their rollback runs later), so no list of event names is needed.
 */
async function collectPairsThenDelete(m: Queryable, chainId: number, at: number, effects: RollbackEffects): Promise<void> {
  const { rows } = await exec<{ address: string }>(
    m,
    `SELECT e.address FROM indexer_events e WHERE e.chain_id = $1 AND e.block_number > $2
        AND EXISTS (SELECT 1 FROM indexer_pairs p WHERE p.chain_id = $1 AND p.address = e.address)
     UNION SELECT pair FROM indexer_transfers WHERE chain_id = $1 AND block_number > $2`,
    [chainId, at],
  );
  effects.pairs.push(...rows.map((r) => r.address));
  await byHeight('indexer_events', 'block_number')(m, chainId, at);
}

/**
 * Orders placed above `at` go; orders whose last fill or cancel was above `at` take the state
 * of their latest surviving one (or of their placement when none survives).
 */
async function rollbackOrders(m: Queryable, chainId: number, at: number): Promise<void> {
  // last_block >= placed_block: the condition on last_block lets the index find the rows.
  await m.query(`DELETE FROM indexer_orders WHERE chain_id = $1 AND last_block > $2 AND placed_block > $2`, [chainId, at]);
  await m.query(
    `UPDATE indexer_orders o
        SET remaining = COALESCE(l.remaining, o.amount),
            state = COALESCE(l.state, 'open'),
            last_block = COALESCE(l.block_number, o.placed_block),
            last_log_index = COALESCE(l.log_index, o.placed_log_index)
       FROM (
         SELECT o2.pair, o2.order_id, e.block_number, e.log_index,
                CASE WHEN e.event_name = 'OrderCancelled' THEN 0 ELSE (e.args->>'remaining')::numeric END AS remaining,
                CASE WHEN e.event_name = 'OrderCancelled' THEN 'cancelled'
                     WHEN (e.args->>'remaining')::numeric = 0 THEN 'filled' ELSE 'open' END AS state
           FROM indexer_orders o2
           LEFT JOIN LATERAL (
             SELECT block_number, log_index, event_name, args FROM indexer_events
              WHERE chain_id = $1 AND address = o2.pair AND event_name IN ('OrderFilled', 'OrderCancelled')
                AND args->>'orderId' = o2.order_id::text
              ORDER BY block_number DESC, log_index DESC LIMIT 1
           ) e ON true
          WHERE o2.chain_id = $1 AND o2.last_block > $2
       ) l
      WHERE o.chain_id = $1 AND o.pair = l.pair AND o.order_id = l.order_id`,
    [chainId, at],
  );
}

/** Runs every derived table's rollback above `at`, in order; `at = -1` undoes everything. */
export async function rollbackDerived(m: Queryable, chainId: number, at: number): Promise<RollbackEffects> {
  const effects: RollbackEffects = { reopened: [], pairs: [], loanTokens: [], loans: false };
  for (const t of DERIVED_TABLES) await t.rollback(m, chainId, at, effects);
  return effects;
}
