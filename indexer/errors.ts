import { RpcRequestRejectedError, RpcUnavailableError } from './rpc/rpc-errors';
import { ChainInvariantError } from './sync/unfinalized-chain';

/**
 * Indexer failures by whether a retry can help. A tailer retries everything with backoff
 * except the fatal ones, which stop that network's tailer loudly: continuing would write
 * data the indexer knows to be wrong.
 */

/** The chain replaced a block below the kept window: derived rows may be wrong and cannot be repaired here. */
export class DeepReorgError extends Error {
  constructor(
    readonly chainId: number,
    readonly base: number,
    message: string,
  ) {
    super(message);
    this.name = 'DeepReorgError';
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

/** Another writer moved the cursor between this tailer's read and write. */
export class CursorConflictError extends Error {
  constructor(chainId: number, expected: number) {
    super(`cursor of chain ${chainId} is no longer at ${expected}: another indexer is writing this network`);
    this.name = 'CursorConflictError';
  }
}

export function isFatal(err: unknown): boolean {
  return err instanceof DeepReorgError || err instanceof ChainMismatchError || err instanceof ChainInvariantError;
}

/** Whether the failure means the network's RPC is not answering usefully (the status turns 503). */
export function isRpcFailure(err: unknown): boolean {
  return err instanceof RpcUnavailableError || err instanceof RpcRequestRejectedError;
}
