import { HttpRequestError, ResponseBodyTooLargeError, RpcRequestError, TimeoutError } from 'viem';
import { RetryableIndexerError } from '../errors';
import type { ProviderFailureClass } from './provider-stats';

/**
 * RPC failures, classified once, here at the RPC boundary (`classifyRpcError`, used only by
 * `rpc.ts`): whatever viem or the node threw leaves `Rpc` as one of these classes, so nothing
 * past the boundary reads raw transport errors.
 * - `RangeTooLargeError`: the provider refused an `eth_getLogs` span; a smaller span helps.
 * - retryable (timeouts, refused connections, 429, 5xx, provider-side limits): waiting and trying
 *   again, possibly on another URL, helps. `RpcUnavailableError` is what is left after retries.
 * - `RpcRequestRejectedError`: every URL refused the request itself (bad params, unknown method).
 * Past the boundary all of them are retryable for the tailer: it tries the step again later,
 * when a provider may have recovered or been reconfigured.
 */
export class RangeTooLargeError extends RetryableIndexerError {
  /** Splitting cures it below one block; a provider refusing a single block's logs is unexpected. */
  readonly code = 'internal';

  constructor(
    readonly from: number,
    readonly to: number,
    /** Largest span (in blocks, inclusive count) the provider said it accepts, when it said so. */
    readonly suggestedSpan: number | null,
    message: string,
  ) {
    super(message);
    this.name = 'RangeTooLargeError';
  }
}

/**
 * The network's RPC does not answer usefully, on any of its URLs: the failures that turn the
 * network's `rpc_ok` false (and the network unhealthy in the API) until a request succeeds.
 */
export abstract class RpcFailureError extends RetryableIndexerError {}

export class RpcUnavailableError extends RpcFailureError {
  readonly code = 'rpc_unavailable';

  constructor(
    readonly method: string,
    readonly attempts: number,
    readonly causeMessage: string,
  ) {
    super(`${method} failed after ${attempts} attempt${attempts === 1 ? '' : 's'} on every RPC URL: ${causeMessage}`);
    this.name = 'RpcUnavailableError';
  }
}

export class RpcRequestRejectedError extends RpcFailureError {
  readonly code = 'rpc_rejected';

  constructor(
    readonly method: string,
    readonly rpcCode: number | undefined,
    causeMessage: string,
  ) {
    super(`${method} rejected by the node${rpcCode === undefined ? '' : ` (code ${rpcCode})`}: ${causeMessage}`);
    this.name = 'RpcRequestRejectedError';
  }
}

/** A JSON-RPC error object returned in a 200 response: raw input of the classification, never thrown past `rpc.ts`. */
export class JsonRpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'JsonRpcError';
  }
}

export type ErrorClass = 'range' | 'retryable' | 'rejected';

/** JSON-RPC codes that mean the request is malformed or unsupported: the same call fails everywhere. */
const REJECTED_CODES = new Set([-32700, -32600, -32601, -32602, -32004, 3]);

/** HTTP statuses a retry can cure: timeouts, rate limits and server-side failures. */
const RETRYABLE_STATUS = new Set([408, 425, 429, 500, 502, 503, 504]);

/** Text of an error including its causes and any body the node sent, for message matching. */
export function errorText(err: unknown): string {
  const parts: string[] = [];
  let e: unknown = err;
  for (let depth = 0; e && depth < 6; depth++) {
    const x = e as { message?: unknown; details?: unknown; shortMessage?: unknown; cause?: unknown };
    for (const v of [x.shortMessage, x.details, x.message]) if (typeof v === 'string' && !parts.includes(v)) parts.push(v);
    e = x.cause;
  }
  return parts.join(' | ') || String(err);
}

function statusOf(err: unknown): number | undefined {
  if (err instanceof HttpRequestError || err instanceof RpcRequestError) return err.status;
  return undefined;
}

function codeOf(err: unknown): number | undefined {
  if (err instanceof JsonRpcError) return err.code;
  if (err instanceof RpcRequestError) return err.code;
  return undefined;
}

/**
 * Classifies a failed call. `isLogs` marks `eth_getLogs`, whose "too many results / range too
 * wide" answers are told apart from other failures by their text (each provider words it differently).
 */
export function classifyRpcError(err: unknown, isLogs: boolean): ErrorClass {
  if (isLogs && (err instanceof ResponseBodyTooLargeError || isRangeMessage(errorText(err)))) return 'range';
  if (err instanceof TimeoutError) return 'retryable';
  // A backend that does not have a block yet says so in many codes, some of them "invalid params".
  if (UNKNOWN_BLOCK.test(errorText(err))) return 'retryable';
  const code = codeOf(err);
  if (code !== undefined && REJECTED_CODES.has(code)) return 'rejected';
  const status = statusOf(err);
  if (status !== undefined && code === undefined) return RETRYABLE_STATUS.has(status) ? 'retryable' : 'rejected';
  return 'retryable';
}

/** What a node answers when asked about a block it does not have (yet): a backend behind the head. */
const UNKNOWN_BLOCK =
  /unknown block|block not found|header not found|could not find block|no block with that hash|resource not found|blockhash cannot be found/i;

/**
 * The finer class of a failed attempt, for the provider's metrics and log lines (the retry policy
 * reads `classifyRpcError` only).
 */
export function failureClassOf(err: unknown, isLogs: boolean): ProviderFailureClass {
  const text = errorText(err);
  if (isLogs && (err instanceof ResponseBodyTooLargeError || isRangeMessage(text))) return 'range_refused';
  if (err instanceof TimeoutError || /timed? ?out/i.test(text)) return 'timeout';
  if (UNKNOWN_BLOCK.test(text)) return 'lagging_backend';
  const code = codeOf(err);
  const status = statusOf(err);
  if (status === 429 || code === -32005 || /too many requests|rate limit/i.test(text)) return 'rate_limited';
  if (status !== undefined && status >= 500) return 'server_error';
  if (code !== undefined && REJECTED_CODES.has(code)) return 'rejected';
  if (hasCause(err, (e) => e instanceof SyntaxError) || /JSON|unexpected token|unexpected end/i.test(text)) return 'invalid_body';
  if (status !== undefined && status >= 400) return 'rejected';
  if (code !== undefined) return 'server_error';
  return 'unreachable';
}

function hasCause(err: unknown, test: (e: unknown) => boolean): boolean {
  let e: unknown = err;
  for (let depth = 0; e && depth < 6; depth++) {
    if (test(e)) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

const RANGE_PATTERNS = [
  /too many (results|logs|blocks)/i,
  /range (is )?too (large|wide)/i,
  /block range/i,
  /query returned more than \d+ results/i,
  /exceeds? (the )?(max|maximum|limit)/i,
  /limited to (a )?[\d,.]+/i,
  /max(imum)? (block )?range/i,
  /response (size|too large)/i,
  /logs matched by query exceeds/i,
  /query timeout exceeded/i,
  /try with this block range/i,
  /this block range should work/i,
];

function isRangeMessage(text: string): boolean {
  return RANGE_PATTERNS.some((p) => p.test(text));
}
