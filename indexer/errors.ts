import type { IndexerErrorCode } from '../shared/indexed/indexer-error-codes';
import { RpcRequestRejectedError, RpcUnavailableError } from './rpc/rpc-errors';
import { ChainInvariantError } from './sync/unfinalized-chain';

/**
 * Indexer failures by whether a retry can help. A tailer retries everything with backoff
 * except the fatal ones, which halt that network's tailer loudly: continuing would write data
 * the indexer knows to be wrong. A halted tailer still picks up an operator's resync request.
 */

/** The operator command that re-derives a network from `fromBlock` on. */
export const resyncCommand = (chainId: number, fromBlock: number) => `npm run ops -- indexer:resync --chain ${chainId} --from-block ${fromBlock}`;

/**
 * The chain replaced blocks below the hard limit (INDEXER_REORG_MAX_DEPTH under the indexed
 * tip): no stored hash within reach matches the node's, so the common ancestor is older than
 * the operator allows the indexer to roll back to by itself. `action` is the command to run.
 */
export class ReorgTooDeepError extends Error {
  readonly action: string;

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

/** The RPC URL serves another chain than the registry says. */
export class ChainMismatchError extends Error {
  constructor(expected: number, actual: number) {
    super(`RPC answers as chain ${actual}, the registry says ${expected}`);
    this.name = 'ChainMismatchError';
  }
}

/**
 * The node gave answers that do not fit together (a log whose block hash is not the header's,
 * headers that do not link, a block it just named is missing). Usually a load-balanced provider
 * mixing backends, or a reorg landing mid-fetch; the next attempt sees a consistent chain.
 */
export class ChainInconsistencyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ChainInconsistencyError';
  }
}

/**
 * A backfill range no longer continues the indexed chain: the block under it changed since it
 * was written. Not a failure: the tailer stops the backfill and reconciles from its tip.
 */
export class BackfillReorgedError extends Error {
  constructor(
    readonly block: number,
    stored: string | null,
    now: string,
  ) {
    super(`block ${block} changed under the backfill (indexed ${stored ?? 'unknown'}, now ${now})`);
    this.name = 'BackfillReorgedError';
  }
}

/** Another writer moved the cursor between this tailer's read and write. */
export class CursorConflictError extends Error {
  constructor(chainId: number, expected: number) {
    super(`cursor of chain ${chainId} is no longer at ${expected}: another indexer is writing this network`);
    this.name = 'CursorConflictError';
  }
}

export function isFatal(err: unknown): boolean {
  return err instanceof ReorgTooDeepError || err instanceof ChainMismatchError || err instanceof ChainInvariantError;
}

/** Whether the failure means the network's RPC is not answering usefully (its status turns unhealthy). */
export function isRpcFailure(err: unknown): boolean {
  return err instanceof RpcUnavailableError || err instanceof RpcRequestRejectedError;
}

/** Postgres connection failures (refused, reset, shut down, terminated by an administrator). */
const DB_DOWN_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', '57P01', '57P02', '57P03', '08000', '08001', '08003', '08006']);

/** The fixed code the status row carries for a failure; the API shows only words for it. */
export function errorCode(err: unknown): IndexerErrorCode {
  if (err instanceof RpcUnavailableError) return 'rpc_unavailable';
  if (err instanceof RpcRequestRejectedError) return 'rpc_rejected';
  if (err instanceof ChainInconsistencyError) return 'chain_inconsistent';
  if (err instanceof CursorConflictError) return 'cursor_conflict';
  if (err instanceof ChainMismatchError) return 'chain_mismatch';
  if (err instanceof ChainInvariantError) return 'invariant_broken';
  if (err instanceof ReorgTooDeepError) return 'reorg_too_deep';
  const e = err as { code?: unknown; driverError?: { code?: unknown }; message?: unknown };
  const code = e?.driverError?.code ?? e?.code;
  if ((typeof code === 'string' && DB_DOWN_CODES.has(code)) || /Connection terminated/i.test(String(e?.message ?? ''))) return 'database_unavailable';
  return 'internal';
}
