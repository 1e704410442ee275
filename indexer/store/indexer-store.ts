import type { Tracer } from '@opentelemetry/api';
import type { DataSource, EntityManager } from 'typeorm';
import { CursorConflictError } from '../errors';
import type { Hex, LightBlock } from '../rpc/rpc';
import { ResyncRequestRepository, type ResyncRequest } from '../../shared/indexed/resync-requests.repository';
import type { FilledQuote } from './changeset-writer';
import type { LoanHealthCrossing } from './loan-writer';
import { rollbackDerived, writeDerived, writeOwnRows, type Changeset, type RollbackEffects } from './derived-tables';
import { LeaseStore, type Fence } from './lease-store';
import { exec, insertMany, type Queryable } from './sql';
import { decideExclusiveWindows, type NewFade } from '../../shared/dutch';
import { inSpan } from '../../shared/platform/tracing';

export type { FilledQuote } from './changeset-writer';
export type { ReopenedQuote, RollbackEffects } from './derived-tables';

/** How far a network is indexed for one contract set: the last block whose logs are all written. */
export interface Cursor {
  block_number: number;
  block_hash: Hex | null;
  block_timestamp: number | null;
}

export interface StoredState {
  cursor: Cursor | null;
  /** The chain's cursor belongs to a different contract set: the network's contracts changed. */
  staleSet: string | null;
  /** The unfinalized window, lowest first. */
  blocks: LightBlock[];
  /** Pairs discovered so far (lower-case). */
  pairs: string[];
  /** The first block indexed (null for a cursor written before this was recorded). */
  startBlock: number | null;
  /** The hash of block 0 of the chain the cursor was indexed from (null for a cursor written before this was recorded). */
  genesis: Hex | null;
}

/** A stored block hash: a window block or a checkpoint. */
export interface StoredHash {
  number: number;
  hash: Hex;
}

/** A batch `IndexerStore.commit` writes. */
export interface CommitBatch {
  chainId: number;
  contractSet: string;
  expected: Cursor;
  cursor: LightBlock;
  changes: Changeset;
  window: { append: LightBlock[] } | { replace: LightBlock[]; checkpoints: StoredHash[] };
  trimBelow?: number;
  pruneBelow?: number;
  /**
   * Resolves once the batch before this one, still committing on another connection, has moved
   * the cursor (or failed). This batch's transaction starts only then: its lease check comes
   * after that one's (a lease taker queued between them cannot wedge the two), its own rows are
   * written while that one writes the rest, and its compare-and-set waits on that one's row lock
   * until it commits (and fails if it rolled back).
   */
  previousCursorMoved?: Promise<void>;
  /** Called once this batch's transaction has moved the cursor. */
  onCursorMoved?: () => void;
}

/** What a committed batch did that the live publisher tells. */
export interface Committed {
  filled: FilledQuote[];
  crossings: LoanHealthCrossing[];
  fades: NewFade[];
}

/** Why a rollback happens; recorded in the same transaction. */
export type RollbackCause = { kind: 'reorg'; depth: number; orphanedTip: number } | { kind: 'resync'; requestIds: number[]; outcome: string };

/**
 * The indexer's repository: the only code that writes the chain-derived tables. Every write
 * that moves a cursor happens in the same transaction as the rows the cursor covers, and the
 * cursor moves by compare-and-set, so a crash or a second writer can neither skip nor repeat a block.
 */
/**
 * The tables holding one row per indexed log: transfers, bond events, prices and loan events in
 * their own, every other event in `indexer_events`.
 */
const LOG_TABLES = ['indexer_events', 'indexer_transfers', 'indexer_bond_events', 'indexer_prices', 'indexer_loan_events'] as const;

export class IndexerStore {
  /**
   * `fadeWindowSeconds` (DUTCH_FADE_WINDOW): awarded Dutch quotes whose exclusive window ended
   * longer ago than this before a batch's last block are not decided any more (they could not count).
   * `tracer`: the indexer's, when the process traces; each commit is then a span.
   */
  constructor(
    private readonly ds: DataSource,
    private readonly opts: { fadeWindowSeconds: number; tracer?: Tracer } = { fadeWindowSeconds: 86_400 },
    /** The lease every write of this store checks in its transaction; null: unfenced (one indexer process, tests). */
    private readonly fence: Fence | null = null,
  ) {}

  /** The same store, its every write checked against `fence` inside the write's own transaction. */
  fenced(fence: Fence): IndexerStore {
    return new IndexerStore(this.ds, this.opts, fence);
  }

  /** A write transaction: the lease is checked (and share-locked) first, so nothing commits once it is lost. */
  private write<T>(fn: (m: EntityManager) => Promise<T>): Promise<T> {
    return this.ds.transaction(async (m) => {
      if (this.fence) await LeaseStore.check(m, this.fence);
      return fn(m);
    });
  }

  async load(chainId: number, contractSet: string): Promise<StoredState> {
    const cursors = await exec<{
      contract_set: string;
      block_number: string;
      block_hash: Hex | null;
      block_timestamp: string | null;
      start_block: string | null;
      genesis_hash: Hex | null;
    }>(this.ds, `SELECT contract_set, block_number, block_hash, block_timestamp, start_block, genesis_hash FROM indexer_cursors WHERE chain_id = $1`, [
      chainId,
    ]);
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
      startBlock: mine?.start_block == null ? null : Number(mine.start_block),
      genesis: mine?.genesis_hash ?? null,
    };
  }

  /**
   * Starts a network over for `contractSet` on the chain whose block 0 is `genesis`: every derived
   * row of the chain is undone (through the same list a rollback runs), the window and
   * checkpoints go, and the cursor sits before `startBlock`.
   */
  async reset(chainId: number, contractSet: string, startBlock: number, genesis: Hex | null): Promise<RollbackEffects> {
    return this.write(async (m) => {
      const effects = await rollbackDerived(m, chainId, -1);
      for (const t of ['indexer_blocks', 'indexer_checkpoints', 'indexer_cursors']) await m.query(`DELETE FROM ${t} WHERE chain_id = $1`, [chainId]);
      await m.query(`INSERT INTO indexer_cursors (chain_id, contract_set, block_number, start_block, genesis_hash) VALUES ($1, $2, $3, $4, $5)`, [
        chainId,
        contractSet,
        startBlock - 1,
        startBlock,
        genesis,
      ]);
      return effects;
    });
  }

  /** Records the genesis of the chain a cursor written before genesis hashes were kept was indexed from. */
  async recordGenesis(chainId: number, contractSet: string, genesis: Hex): Promise<void> {
    await this.write((m) =>
      m.query(`UPDATE indexer_cursors SET genesis_hash = $3 WHERE chain_id = $1 AND contract_set = $2 AND genesis_hash IS NULL`, [
        chainId,
        contractSet,
        genesis,
      ]),
    );
  }

  /** Stores a block as the window's base when the window is empty (a cursor without its header). */
  async saveBase(chainId: number, block: LightBlock): Promise<void> {
    await this.write((m) =>
      m.query(`INSERT INTO indexer_blocks (chain_id, number, hash, parent_hash, timestamp) VALUES ($1,$2,$3,$4,$5) ON CONFLICT DO NOTHING`, [
        chainId,
        block.number,
        block.hash,
        block.parentHash,
        block.timestamp,
      ]),
    );
  }

  /**
   * Writes a batch: its rows, their effects (balances, orders, quotes), the block window, and
   * the cursor, in one transaction. `window.append` adds blocks above the tip; `window.replace`
   * makes linked blocks the whole window (after a backfill range that does not continue it), the
   * blocks it held becoming checkpoints with `checkpoints` (headers the range read anyway).
   * `trimBelow` moves window blocks below it to the checkpoints; `pruneBelow` forgets older checkpoints.
   */
  async commit(args: CommitBatch): Promise<Committed> {
    const attributes = { 'rfq.chain_id': args.chainId, 'rfq.block.from': args.expected.block_number + 1, 'rfq.block.to': args.cursor.number };
    return inSpan(this.opts.tracer, 'indexer commit', { attributes }, async (span) => {
      const written = await this.writeBatch(args);
      span?.setAttribute('rfq.quotes_filled', written.filled.length);
      return written;
    });
  }

  private async writeBatch(args: CommitBatch): Promise<Committed> {
    const { chainId } = args;
    await args.previousCursorMoved;
    return this.write(async (m) => {
      await relaxedCommit(m);
      // The batch's own rows first: they read nothing, so they need not wait for the previous
      // batch, which may still be committing (the backfill pipeline, `previousCursorMoved`). The
      // compare-and-set then waits for that commit (its row lock) and fails if it rolled back;
      // everything after it reads what that commit wrote.
      await writeOwnRows(m, chainId, args.changes).catch((err: unknown) => {
        // Its keys are the batch's logs: only another writer having written those blocks repeats one.
        if ((err as { code?: string }).code === UNIQUE_VIOLATION) throw new CursorConflictError(chainId, args.expected.block_number);
        throw err;
      });
      if (args.previousCursorMoved) {
        // Wait here for the previous batch's commit (it holds the row): the compare-and-set below
        // is a new statement, so it sees that commit. Without the wait it would read the row as
        // it was before that batch and find the cursor elsewhere than expected.
        await m.query(`SELECT 1 FROM indexer_cursors WHERE chain_id = $1 AND contract_set = $2 FOR UPDATE`, [chainId, args.contractSet]);
      }
      await this.moveCursor(m, chainId, args.contractSet, args.expected, args.cursor);
      args.onCursorMoved?.();
      const written = await writeDerived(m, chainId, args.changes, { ownRowsWritten: true });
      // After the batch's rows: a winner's exclusive fill in this batch is seen before its window is decided.
      const fades = await decideExclusiveWindows(m, chainId, { number: args.cursor.number, timestamp: args.cursor.timestamp }, this.opts.fadeWindowSeconds);
      if ('replace' in args.window) {
        await this.windowToCheckpoints(m, chainId, Number.MAX_SAFE_INTEGER);
        await m.query(`DELETE FROM indexer_blocks WHERE chain_id = $1`, [chainId]);
        await this.insertCheckpoints(m, chainId, args.window.checkpoints);
        await this.insertBlocks(m, chainId, args.window.replace);
      } else {
        await this.insertBlocks(m, chainId, args.window.append);
      }
      if (args.trimBelow !== undefined) {
        await this.windowToCheckpoints(m, chainId, args.trimBelow);
        await m.query(`DELETE FROM indexer_blocks WHERE chain_id = $1 AND number < $2`, [chainId, args.trimBelow]);
      }
      if (args.pruneBelow !== undefined) await m.query(`DELETE FROM indexer_checkpoints WHERE chain_id = $1 AND number < $2`, [chainId, args.pruneBelow]);
      return { filled: written.filled, crossings: written.loans.crossings, fades };
    });
  }

  /**
   * Undoes everything derived from blocks above `ancestor` (null: above nothing, the network
   * from genesis), in one transaction: every table of the derived-table list, the window
   * (trimmed to the ancestor, or reset to it when the ancestor is below the window), the
   * checkpoints above it, the cursor, and the record of why (reorg counts, resync requests).
   */
  async rollback(args: {
    chainId: number;
    contractSet: string;
    expected: Cursor;
    ancestor: LightBlock | null;
    cause: RollbackCause;
  }): Promise<RollbackEffects> {
    const { chainId, ancestor, cause } = args;
    const at = ancestor?.number ?? -1;
    return this.write(async (m) => {
      await this.moveCursor(m, chainId, args.contractSet, args.expected, ancestor);
      const effects = await rollbackDerived(m, chainId, at);
      await m.query(`DELETE FROM indexer_blocks WHERE chain_id = $1 AND number > $2`, [chainId, at]);
      await m.query(`DELETE FROM indexer_checkpoints WHERE chain_id = $1 AND number > $2`, [chainId, at]);
      const kept = await exec<{ hash: string }>(m, `SELECT hash FROM indexer_blocks WHERE chain_id = $1 AND number = $2`, [chainId, at]);
      if (kept.rows[0]?.hash !== ancestor?.hash) {
        // The ancestor is below the window: it becomes the whole window, as after a backfill range.
        await this.windowToCheckpoints(m, chainId, at);
        await m.query(`DELETE FROM indexer_blocks WHERE chain_id = $1`, [chainId]);
        if (ancestor) await this.insertBlocks(m, chainId, [ancestor]);
      }
      if (cause.kind === 'reorg') {
        await m.query(
          `INSERT INTO indexer_reorg_stats AS s (chain_id, reorgs, deepest, last_depth, last_ancestor_block, last_ancestor_hash, last_orphaned_tip, last_at)
           VALUES ($1, 1, $2, $2, $3, $4, $5, now())
           ON CONFLICT (chain_id) DO UPDATE SET reorgs = s.reorgs + 1, deepest = GREATEST(s.deepest, EXCLUDED.deepest), last_depth = EXCLUDED.last_depth,
             last_ancestor_block = EXCLUDED.last_ancestor_block, last_ancestor_hash = EXCLUDED.last_ancestor_hash,
             last_orphaned_tip = EXCLUDED.last_orphaned_tip, last_at = EXCLUDED.last_at`,
          [chainId, cause.depth, at, ancestor?.hash ?? null, cause.orphanedTip],
        );
      } else {
        await new ResyncRequestRepository(m).complete(cause.requestIds, {
          rolled_back_to: at,
          reopened_quotes: effects.reopened.length,
          outcome: cause.outcome,
        });
      }
      return effects;
    });
  }

  /** An operator's resync requests for the network that no tailer has served yet, oldest first. */
  pendingResyncs(chainId: number): Promise<ResyncRequest[]> {
    return new ResyncRequestRepository(this.ds).pending(chainId);
  }

  /**
   * The positions (`block:hash:log_index`) of every log stored for [from, to]: what the standing
   * audit compares with a fresh read of the chain. Each indexed log keeps exactly one row in one
   * of `LOG_TABLES` (the audit's test on a faithful copy fails when one is missing here).
   */
  async storedLogKeys(chainId: number, from: number, to: number): Promise<string[]> {
    const rows: { k: string }[] = await this.ds.query(
      LOG_TABLES.map(
        (t) => `SELECT block_number || ':' || block_hash || ':' || log_index AS k FROM ${t} WHERE chain_id = $1 AND block_number BETWEEN $2 AND $3`,
      ).join(' UNION ALL '),
      [chainId, from, to],
    );
    return rows.map((r) => r.k);
  }

  /** Asks this network's tailer to re-derive everything from `fromBlock` (as `ops indexer:resync` does). */
  async requestResync(chainId: number, fromBlock: number): Promise<number> {
    return (await new ResyncRequestRepository(this.ds).create(chainId, fromBlock)).id;
  }

  /** Closes resync requests that need no rollback (the network is already below them). */
  async closeResync(requestIds: number[], cursor: number, outcome: string): Promise<void> {
    await this.write((m) => new ResyncRequestRepository(m).complete(requestIds, { rolled_back_to: cursor, reopened_quotes: 0, outcome }));
  }

  /**
   * Window blocks below `number` leave the window (they are out of reorg reach by the window's
   * measure) and become checkpoints; checkpoints below `pruneBelow` (out of reach of the hard
   * limit) are forgotten.
   */
  async finalize(chainId: number, number: number, pruneBelow: number): Promise<void> {
    await this.write(async (m) => {
      await this.windowToCheckpoints(m, chainId, number);
      await m.query(`DELETE FROM indexer_blocks WHERE chain_id = $1 AND number < $2`, [chainId, number]);
      await m.query(`DELETE FROM indexer_checkpoints WHERE chain_id = $1 AND number < $2`, [chainId, pruneBelow]);
    });
  }

  /** Stored hashes below `below`, newest first: what a deep ancestor search compares with the node. */
  async checkpointsBelow(chainId: number, below: number, limit: number): Promise<StoredHash[]> {
    const { rows } = await exec<{ number: string; hash: Hex }>(
      this.ds,
      `SELECT number, hash FROM indexer_checkpoints WHERE chain_id = $1 AND number < $2 ORDER BY number DESC LIMIT $3`,
      [chainId, below, limit],
    );
    return rows.map((r) => ({ number: Number(r.number), hash: r.hash }));
  }

  private async windowToCheckpoints(m: Queryable, chainId: number, below: number): Promise<void> {
    await m.query(
      `INSERT INTO indexer_checkpoints (chain_id, number, hash) SELECT chain_id, number, hash FROM indexer_blocks WHERE chain_id = $1 AND number < $2
       ON CONFLICT (chain_id, number) DO UPDATE SET hash = EXCLUDED.hash`,
      [chainId, below],
    );
  }

  private async insertCheckpoints(m: Queryable, chainId: number, hashes: StoredHash[]): Promise<void> {
    await insertMany(
      m,
      'indexer_checkpoints',
      hashes,
      [
        { name: 'number', type: 'bigint' },
        { name: 'hash', type: 'text' },
      ],
      { constants: [{ name: 'chain_id', value: chainId, type: 'integer' }], suffix: 'ON CONFLICT (chain_id, number) DO UPDATE SET hash = EXCLUDED.hash' },
    );
  }

  /** Moves the cursor by compare-and-set; `to` null puts it before genesis. */
  private async moveCursor(m: Queryable, chainId: number, contractSet: string, expected: Cursor, to: LightBlock | null): Promise<void> {
    const res = await exec(
      m,
      `UPDATE indexer_cursors SET block_number = $3, block_hash = $4, block_timestamp = $5, updated_at = now()
        WHERE chain_id = $1 AND contract_set = $2 AND block_number = $6 AND block_hash IS NOT DISTINCT FROM $7`,
      [chainId, contractSet, to?.number ?? -1, to?.hash ?? null, to?.timestamp ?? null, expected.block_number, expected.block_hash],
    );
    if (res.count !== 1) throw new CursorConflictError(chainId, expected.block_number);
  }

  private async insertBlocks(m: Queryable, chainId: number, blocks: LightBlock[]): Promise<void> {
    await insertMany(
      m,
      'indexer_blocks',
      blocks,
      [
        { name: 'number', type: 'bigint', value: (b) => b.number },
        { name: 'hash', type: 'text', value: (b) => b.hash },
        { name: 'parent_hash', type: 'text', value: (b) => b.parentHash },
        { name: 'timestamp', type: 'bigint', value: (b) => b.timestamp },
      ],
      { constants: [{ name: 'chain_id', value: chainId, type: 'integer' }] },
    );
  }
}

/** Postgres' SQLSTATE for a duplicate key. */
const UNIQUE_VIOLATION = '23505';

/**
 * The commit returns before its WAL reaches disk. Safe for derived data: the cursor is in the
 * same transaction, so a database crash can only lose whole batches, which are indexed again
 * (and republished under the same idempotency keys). It saves a disk flush per batch.
 */
async function relaxedCommit(m: Queryable): Promise<void> {
  await m.query(`SET LOCAL synchronous_commit TO OFF`);
}
