import type { IndexerErrorCode } from '../shared/indexed/indexer-error-codes';

/**
 * Indexer failures by whether a retry can help, told by base class rather than by a list: every
 * error the indexer raises itself extends `RetryableIndexerError` or `FatalIndexerError` and
 * carries the fixed code its status row shows. A tailer retries the first kind with backoff,
 * forever, while its status reports them. The second kind halts that network's tailer loudly:
 * continuing would write data the indexer knows to be wrong. A halted tailer still picks up an
 * operator's resync request. Errors the indexer did not raise (the database going away, a bug)
 * are retried too: the database comes back, and a bug shows in the logs and as `internal`.
 *
 * The base is not exported, so a new error class cannot sit outside the two kinds.
 */
abstract class IndexerError extends Error {
  /** The fixed code the status row carries for this failure; the API shows only words for it. */
  abstract readonly code: IndexerErrorCode;
}

/** A failure that waiting and trying the step again (from the database's state) can cure. */
export abstract class RetryableIndexerError extends IndexerError {}

/** A failure no retry can cure: the network halts until an operator acts. */
export abstract class FatalIndexerError extends IndexerError {
  /** The operator command that cures it, when there is one; shown in the status. */
  readonly action: string | null = null;
}

/** The operator command that re-derives a network from `fromBlock` on. */
export const resyncCommand = (chainId: number, fromBlock: number) => `npm run ops -- indexer:resync --chain ${chainId} --from-block ${fromBlock}`;

/**
 * The chain replaced blocks below the hard limit (INDEXER_REORG_MAX_DEPTH under the indexed
 * tip): no stored hash within reach matches the node's, so the common ancestor is older than
 * the operator allows the indexer to roll back to by itself. `action` is the command to run.
 */
export class ReorgTooDeepError extends FatalIndexerError {
  readonly code = 'reorg_too_deep';
  override readonly action: string;

  constructor(
    readonly chainId: number,
    /** The lowest block compared: the ancestor is below it. */
    readonly searchedDownTo: number,
    readonly maxDepth: number,
    /** A block every indexed row is above (the network's start block): resyncing from it is always right. */
    readonly safeFromBlock: number,
  ) {
    const action = resyncCommand(chainId, safeFromBlock);
    super(
      `chain ${chainId} reorganised below block ${searchedDownTo}, more than INDEXER_REORG_MAX_DEPTH (${maxDepth}) blocks under the indexed tip; ` +
        `indexing of this network is halted. Run \`${action}\` (or a later --from-block at or below the fork point, if known)`,
    );
    this.name = 'ReorgTooDeepError';
    this.action = action;
  }
}

/** The RPC URL serves another chain than the network's row says: every answer would be the wrong chain's. */
export class ChainMismatchError extends FatalIndexerError {
  readonly code = 'chain_mismatch';

  constructor(expected: number, actual: number) {
    super(`RPC answers as chain ${actual}, the network says ${expected}`);
    this.name = 'ChainMismatchError';
  }
}

/**
 * The node gave answers that do not fit together (a log whose block hash is not the header's,
 * headers that do not link, a block it just named is missing). Usually a load-balanced provider
 * mixing backends, or a reorg landing mid-fetch; the next attempt sees a consistent chain.
 */
export class ChainInconsistencyError extends RetryableIndexerError {
  readonly code = 'chain_inconsistent';

  constructor(message: string) {
    super(message);
    this.name = 'ChainInconsistencyError';
  }
}

/**
 * A backfill range no longer continues the indexed chain: the block under it changed since it
 * was written. Not a failure: the tailer stops the backfill and reconciles from its tip (were
 * it to escape, the next pass would do the same).
 */
export class BackfillReorgedError extends RetryableIndexerError {
  readonly code = 'chain_inconsistent';

  constructor(
    readonly block: number,
    stored: string | null,
    now: string,
  ) {
    super(`block ${block} changed under the backfill (indexed ${stored ?? 'unknown'}, now ${now})`);
    this.name = 'BackfillReorgedError';
  }
}

/**
 * The node now serves another chain under the same chain id: its block 0 is not the one the
 * network was indexed from (a devchain started again, a testnet reset). Not a reorg and not a
 * failure: the tailer reloads at once, and loading starts the network over on the new chain
 * (sync/tailer-context.ts) with one info line.
 */
export class ChainReplacedError extends RetryableIndexerError {
  readonly code = 'chain_inconsistent';

  constructor(
    readonly chainId: number,
    readonly recorded: string,
    readonly now: string,
  ) {
    super(`chain ${chainId}: the node's genesis block is ${now}, the network was indexed from ${recorded}`);
    this.name = 'ChainReplacedError';
  }
}

/** Another writer moved the cursor between this tailer's read and write; the next pass reloads it. */
export class CursorConflictError extends RetryableIndexerError {
  readonly code = 'cursor_conflict';

  constructor(chainId: number, expected: number) {
    super(`cursor of chain ${chainId} is no longer at ${expected}: another indexer is writing this network`);
    this.name = 'CursorConflictError';
  }
}

/**
 * This process no longer holds the network's lease (it expired, or a standby took it over): its
 * write was refused inside the transaction and nothing of it was committed. The holder's lease
 * keeper stops the tailer; the network goes on from the new holder's committed cursor.
 */
export class LeaseLostError extends RetryableIndexerError {
  readonly code = 'cursor_conflict';

  constructor(chainId: number, token: number) {
    super(`lease ${token} of chain ${chainId} is no longer held by this indexer process: another one writes this network`);
    this.name = 'LeaseLostError';
  }
}

/** Postgres connection failures (refused, reset, shut down, terminated by an administrator). */
const DB_DOWN_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', '57P01', '57P02', '57P03', '08000', '08001', '08003', '08006']);

function isDatabaseDown(err: unknown): boolean {
  const e = err as { code?: unknown; driverError?: { code?: unknown }; message?: unknown };
  const code = e?.driverError?.code ?? e?.code;
  return (typeof code === 'string' && DB_DOWN_CODES.has(code)) || /Connection terminated/i.test(String(e?.message ?? ''));
}

/** The fixed code the status row carries for a failure; the API shows only words for it. */
export function errorCode(err: unknown): IndexerErrorCode {
  if (err instanceof IndexerError) return err.code;
  if (isDatabaseDown(err)) return 'database_unavailable';
  return 'internal';
}
