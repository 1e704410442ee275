import type { DataSource } from 'typeorm';
import { CursorConflictError } from '../errors';
import type { Changeset } from '../handlers/changeset';
import type { Hex, LightBlock } from '../rpc/rpc';
import { writeChangeset, type FilledQuote } from './changeset-writer';
import { exec, insertMany, type Queryable } from './sql';

export type { FilledQuote } from './changeset-writer';

/** How far a network is indexed for one contract set: the last block whose logs are all written. */
export interface Cursor {
  block_number: number;
  block_hash: Hex | null;
  block_timestamp: number | null;
}

export interface StoredState {
  cursor: Cursor | null;
  /** The chain's cursor belongs to a different contract set: the registry changed. */
  staleSet: string | null;
  /** The unfinalized window, lowest first. */
  blocks: LightBlock[];
  /** Pairs discovered so far (lower-case). */
  pairs: string[];
}

/** A quote reopened because the settlement that filled it was reorganised away. */
export interface ReopenedQuote {
  quote_id: string;
  state: 'open' | 'expired';
  stream_token_hash: string;
  taker_address_hash: Hex;
}

/** Tables derived from logs: what a reorg or a reset deletes by height. */
const DERIVED_BY_BLOCK = ['indexer_events', 'indexer_pairs', 'indexer_settlements', 'indexer_transfers'] as const;

const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';

/**
 * The indexer's repository: the only code that writes the chain-derived tables. Every write
 * that moves a cursor happens in the same transaction as the rows the cursor covers, and the
 * cursor moves by compare-and-set, so a crash or a second writer can neither skip nor repeat a block.
 */
export class IndexerStore {
  constructor(private readonly ds: DataSource) {}

  async load(chainId: number, contractSet: string): Promise<StoredState> {
    const cursors = await exec<{ contract_set: string; block_number: string; block_hash: Hex | null; block_timestamp: string | null }>(
      this.ds,
      `SELECT contract_set, block_number, block_hash, block_timestamp FROM indexer_cursors WHERE chain_id = $1`,
      [chainId],
    );
    const mine = cursors.rows.find((c) => c.contract_set === contractSet);
    const stale = cursors.rows.find((c) => c.contract_set !== contractSet);
    const blocks = await exec<{ number: string; hash: Hex; parent_hash: Hex; timestamp: string }>(
      this.ds,
      `SELECT number, hash, parent_hash, timestamp FROM indexer_blocks WHERE chain_id = $1 ORDER BY number`,
      [chainId],
    );
    const pairs = await exec<{ address: string }>(this.ds, `SELECT address FROM indexer_pairs WHERE chain_id = $1`, [chainId]);
    return {
      cursor: mine
        ? {
            block_number: Number(mine.block_number),
            block_hash: mine.block_hash,
            block_timestamp: mine.block_timestamp === null ? null : Number(mine.block_timestamp),
          }
        : null,
      staleSet: stale ? stale.contract_set : null,
      blocks: blocks.rows.map((b) => ({ number: Number(b.number), hash: b.hash, parentHash: b.parent_hash, timestamp: Number(b.timestamp) })),
      pairs: pairs.rows.map((p) => p.address.toLowerCase()),
    };
  }

  /** Starts a network over for `contractSet`: every derived row of the chain goes, the cursor sits before `startBlock`. */
  async reset(chainId: number, contractSet: string, startBlock: number): Promise<void> {
    await this.ds.transaction(async (m) => {
      for (const t of [...DERIVED_BY_BLOCK, 'indexer_balances', 'indexer_orders', 'indexer_blocks', 'indexer_cursors']) {
        await m.query(`DELETE FROM ${t} WHERE chain_id = $1`, [chainId]);
      }
      await m.query(`INSERT INTO indexer_cursors (chain_id, contract_set, block_number) VALUES ($1, $2, $3)`, [chainId, contractSet, startBlock - 1]);
    });
  }

  /** Stores a block as the window's base when the window is empty (a cursor without its header). */
  async saveBase(chainId: number, block: LightBlock): Promise<void> {
    await this.ds.query(
      `INSERT INTO indexer_blocks (chain_id, number, hash, parent_hash, timestamp) VALUES ($1,$2,$3,$4,$5) ON CONFLICT DO NOTHING`,
      [chainId, block.number, block.hash, block.parentHash, block.timestamp],
    );
  }

  /**
   * Writes a batch: its rows, their effects (balances, orders, quotes), the block window, and
   * the cursor, in one transaction. `window.append` adds realtime blocks above the tip;
   * `window.replace` makes one block the whole window (after a backfill range).
   */
  async commit(args: {
    chainId: number;
    contractSet: string;
    expected: Cursor;
    cursor: LightBlock;
    changes: Changeset;
    window: { append: LightBlock[] } | { replace: LightBlock };
  }): Promise<{ filled: FilledQuote[] }> {
    return this.ds.transaction(async (m) => {
      await relaxedCommit(m);
      await this.moveCursor(m, args.chainId, args.contractSet, args.expected, args.cursor);
      const filled = await writeChangeset(m, args.chainId, args.changes);
      if ('replace' in args.window) {
        await m.query(`DELETE FROM indexer_blocks WHERE chain_id = $1`, [args.chainId]);
        await this.insertBlocks(m, args.chainId, [args.window.replace]);
      } else {
        await this.insertBlocks(m, args.chainId, args.window.append);
      }
      return { filled };
    });
  }

  /**
   * Undoes everything derived from blocks above `ancestor`, in one transaction: balances are
   * reverted by the orphaned transfers before those are deleted, orders touched by orphaned
   * logs are recomputed from the logs that remain, quotes filled by orphaned settlements reopen.
   */
  async rollback(args: {
    chainId: number;
    contractSet: string;
    expected: Cursor;
    ancestor: LightBlock;
  }): Promise<{ reopened: ReopenedQuote[]; pairs: string[] }> {
    const { chainId, ancestor } = args;
    return this.ds.transaction(async (m) => {
      await this.moveCursor(m, chainId, args.contractSet, args.expected, ancestor);
      const at = ancestor.number;
      await revertBalances(m, chainId, at);
      const reopened = await exec<ReopenedQuote>(
        m,
        `WITH gone AS (DELETE FROM indexer_settlements WHERE chain_id = $1 AND block_number > $2 AND quote_id IS NOT NULL RETURNING quote_id)
         UPDATE quotes q
            SET state = CASE WHEN q.expires_at > now() THEN 'open' ELSE 'expired' END,
                closed_at = CASE WHEN q.expires_at > now() THEN NULL ELSE now() END,
                fill_tx_hash = NULL
           FROM gone WHERE q.id = gone.quote_id AND q.state = 'filled'
         RETURNING q.id AS quote_id, q.state, q.stream_token_hash, q.taker_address_hash`,
        [chainId, at],
      );
      const pairs = await exec<{ address: string }>(
        m,
        `SELECT address FROM indexer_events WHERE chain_id = $1 AND block_number > $2 AND event_name NOT IN ('PairCreated', 'PackageExecuted')
         UNION SELECT pair FROM indexer_transfers WHERE chain_id = $1 AND block_number > $2`,
        [chainId, at],
      );
      for (const t of DERIVED_BY_BLOCK) {
        const col = t === 'indexer_pairs' ? 'created_block' : 'block_number';
        await m.query(`DELETE FROM ${t} WHERE chain_id = $1 AND ${col} > $2`, [chainId, at]);
      }
      // last_block >= placed_block: the condition on last_block lets the index find the rows.
      await m.query(`DELETE FROM indexer_orders WHERE chain_id = $1 AND last_block > $2 AND placed_block > $2`, [chainId, at]);
      await recomputeOrders(m, chainId, at);
      await m.query(`DELETE FROM indexer_blocks WHERE chain_id = $1 AND number > $2`, [chainId, at]);
      return { reopened: reopened.rows, pairs: pairs.rows.map((p) => p.address) };
    });
  }

  /** Forgets window blocks below `number` (they are final now). */
  async finalize(chainId: number, number: number): Promise<void> {
    await this.ds.query(`DELETE FROM indexer_blocks WHERE chain_id = $1 AND number < $2`, [chainId, number]);
  }

  private async moveCursor(m: Queryable, chainId: number, contractSet: string, expected: Cursor, to: LightBlock): Promise<void> {
    const res = await exec(
      m,
      `UPDATE indexer_cursors SET block_number = $3, block_hash = $4, block_timestamp = $5, updated_at = now()
        WHERE chain_id = $1 AND contract_set = $2 AND block_number = $6 AND block_hash IS NOT DISTINCT FROM $7`,
      [chainId, contractSet, to.number, to.hash, to.timestamp, expected.block_number, expected.block_hash],
    );
    if (res.count !== 1) throw new CursorConflictError(chainId, expected.block_number);
  }

  private async insertBlocks(m: Queryable, chainId: number, blocks: LightBlock[]): Promise<void> {
    await insertMany(m, 'indexer_blocks', blocks, [
      { name: 'number', type: 'bigint', value: (b) => b.number },
      { name: 'hash', type: 'text', value: (b) => b.hash },
      { name: 'parent_hash', type: 'text', value: (b) => b.parentHash },
      { name: 'timestamp', type: 'bigint', value: (b) => b.timestamp },
    ], { constants: [{ name: 'chain_id', value: chainId, type: 'integer' }] });
  }
}

/**
 * Subtracts what orphaned transfers (those above `at`) added to balances, and removes balance
 * rows those transfers created. Both statements find their rows through the transfers' and the
 * balances' primary keys, so the cost follows the reorg's size, not the table's.
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
    `${deltas} UPDATE indexer_balances b SET balance = b.balance + agg.d, updated_block = LEAST(b.updated_block, $2)
      FROM agg WHERE b.chain_id = $1 AND b.holder = agg.holder AND b.pair = agg.pair AND b.option_id = agg.option_id`,
    params,
  );
}

/**
 * The commit returns before its WAL reaches disk. Safe for derived data: the cursor is in the
 * same transaction, so a database crash can only lose whole batches, which are indexed again
 * (and republished under the same idempotency keys). It saves a disk flush per batch.
 */
async function relaxedCommit(m: Queryable): Promise<void> {
  await m.query(`SET LOCAL synchronous_commit TO OFF`);
}

/**
 * Orders whose last log was orphaned take the state of their latest surviving fill or cancel
 * (or of their placement when none survives). Reorgs are shallow, so this touches few rows.
 */
async function recomputeOrders(m: Queryable, chainId: number, at: number): Promise<void> {
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
