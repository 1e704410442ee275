import { reopenFilledQuotes } from '../../shared/quotes';
import type { Hex } from '../rpc/rpc';
import { exec, type Queryable } from './sql';

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
}

/**
 * One table the indexer derives from logs, and how its rows above block `at` are undone. The
 * rollback of a reorg, of an operator's resync and the reset of a network all run this list in
 * order, in one transaction; nothing else decides what a rollback covers.
 */
export interface DerivedTable {
  table: string;
  /** Where its rows come from, for the reader of this list. */
  from: string;
  rollback(m: Queryable, chainId: number, at: number, effects: RollbackEffects): Promise<void>;
}

const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';

/** Deletes the rows of a log-keyed table above `at`; the column leads the primary key (or an index). */
const byHeight =
  (table: string, column: string) =>
  async (m: Queryable, chainId: number, at: number): Promise<void> => {
    await m.query(`DELETE FROM ${table} WHERE chain_id = $1 AND ${column} > $2`, [chainId, at]);
  };

/**
 * Every table the indexer writes that holds chain-derived data, in the order their rollback
 * must run: effects that are recomputed from raw rows (balances from transfers, quotes from
 * settlements, explore notices from events) run while those rows still exist; orders are
 * recomputed from the events that survive, so after them.
 */
export const DERIVED_TABLES: readonly DerivedTable[] = [
  { table: 'indexer_balances', from: 'ERC-6909 Transfer (net per holder, pair, id)', rollback: revertBalances },
  { table: 'quotes', from: 'PackageExecuted (state filled, fill_tx_hash)', rollback: reopenQuotes },
  { table: 'indexer_events', from: 'every log read except transfers', rollback: collectPairsThenDelete },
  { table: 'indexer_transfers', from: 'ERC-6909 Transfer', rollback: byHeight('indexer_transfers', 'block_number') },
  { table: 'indexer_settlements', from: 'PackageExecuted', rollback: byHeight('indexer_settlements', 'block_number') },
  { table: 'indexer_pairs', from: 'PairCreated of the factory', rollback: byHeight('indexer_pairs', 'created_block') },
  { table: 'indexer_orders', from: 'OrderPlaced, OrderFilled, OrderCancelled', rollback: rollbackOrders },
];

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
  const reopened = await reopenFilledQuotes(m, [...makerOf.keys()]);
  effects.reopened.push(...reopened.map((q) => ({ ...q, maker: makerOf.get(q.quote_id) as Hex })));
}

async function collectPairsThenDelete(m: Queryable, chainId: number, at: number, effects: RollbackEffects): Promise<void> {
  const { rows } = await exec<{ address: string }>(
    m,
    `SELECT address FROM indexer_events WHERE chain_id = $1 AND block_number > $2 AND event_name NOT IN ('PairCreated', 'PackageExecuted')
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
  const effects: RollbackEffects = { reopened: [], pairs: [] };
  for (const t of DERIVED_TABLES) await t.rollback(m, chainId, at, effects);
  return effects;
}
