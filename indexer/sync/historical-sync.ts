import type { DecodedLog } from '../decode/decode-log';
import { ChainInconsistencyError } from '../errors';
import type { Changeset } from '../handlers/changeset';
import { handleLogs } from '../handlers/handle-logs';
import type { RangeSizer } from '../rpc/log-range';
import type { LightBlock, Rpc } from '../rpc/rpc';
import { assertLogsMatchHeaders, decodeAll, fetchAdaptive, fetchRangeLogs, type FetchOptions } from './fetch-logs';
import type { Sources } from './sources';

/** One backfill step: every log of [from, to] and the header of `to`, which becomes the cursor. */
export interface HistoricalBatch {
  from: number;
  to: number;
  toBlock: LightBlock;
  logs: DecodedLog[];
  timestamps: Map<number, number>;
  /**
   * What the logs change, derived while the previous range is being written (the handlers are
   * pure, so deriving early changes nothing but when the CPU work happens).
   */
  changes: Changeset;
  /** Pairs created inside the range (lower-case). */
  created: string[];
  /** Time spent fetching and decoding the range. */
  fetchMs: number;
}

export interface HistoricalSyncArgs extends FetchOptions {
  rpc: Rpc;
  sources: Sources;
  sizer: RangeSizer;
  /** Ranges fetched ahead of the one the consumer is writing (0: fetch only when asked). */
  prefetch: number;
  signal: AbortSignal;
}

interface Planned {
  from: number;
  to: number;
  pairs: Set<string>;
  result: Promise<HistoricalBatch>;
}

async function fetchBatch(args: HistoricalSyncArgs, from: number, to: number, pairs: Set<string>): Promise<HistoricalBatch> {
  const started = Date.now();
  const [{ logs, created }, toBlock] = await Promise.all([
    fetchAdaptive(args.rpc, args.sources, pairs, from, to, args.sizer, args),
    args.rpc.blockByNumber(to),
  ]);
  if (!toBlock) throw new ChainInconsistencyError(`node has no block ${to} below the head it reported`);
  const headers = await headersFor(args.rpc, logs.map((l) => Number(l.blockNumber)), toBlock);
  assertLogsMatchHeaders(logs, headers);
  const decoded = decodeAll(logs, args.sources, [...pairs, ...created], args.logger);
  const timestamps = new Map([...headers.values()].map((h) => [h.number, h.timestamp]));
  return { from, to, toBlock, logs: decoded, timestamps, changes: handleLogs(decoded, timestamps), created, fetchMs: Date.now() - started };
}

/** Headers of the blocks that hold logs (timestamps, and the hash check), fetched in JSON-RPC batches. */
async function headersFor(rpc: Rpc, numbers: number[], known: LightBlock): Promise<Map<number, LightBlock>> {
  const wanted = [...new Set(numbers)].filter((n) => n !== known.number);
  const blocks = await rpc.blocksByNumber(wanted);
  const out = new Map<number, LightBlock>([[known.number, known]]);
  blocks.forEach((b, i) => {
    if (!b) throw new ChainInconsistencyError(`node has no block ${wanted[i]} although it returned logs from it`);
    out.set(b.number, b);
  });
  return out;
}

/**
 * Backfills [from, to] range by range, in order. Up to `prefetch` ranges are fetched while the
 * consumer writes the current one, so the node and the database work at the same time; nothing
 * else is held, so memory does not grow with the length of the history.
 *
 * A pair discovered in one range must be watched in every later range, including ranges
 * already fetched before it was known: those are topped up with the new pair's logs before
 * they are handed out.
 */
export async function* historicalSync(args: HistoricalSyncArgs, from: number, to: number): AsyncGenerator<HistoricalBatch> {
  const queue: Planned[] = [];
  let next = from;
  /** Starts fetching ranges until `ahead` are queued. */
  const plan = (ahead: number) => {
    while (queue.length < ahead && next <= to && !args.signal.aborted) {
      const a = next;
      const b = Math.min(to, a + args.sizer.span - 1);
      next = b + 1;
      const pairs = new Set(args.sources.pairs);
      const result = fetchBatch(args, a, b, pairs);
      // Awaited in order later; this only keeps an early failure of a queued range from being unhandled.
      result.catch(() => undefined);
      queue.push({ from: a, to: b, pairs, result });
    }
  };
  while (!args.signal.aborted) {
    if (queue.length === 0) plan(1);
    const item = queue.shift();
    if (!item) return;
    const batch = await item.result;
    const missing = [...args.sources.pairs].filter((p) => !item.pairs.has(p));
    if (missing.length > 0) await topUp(args, batch, missing);
    for (const p of batch.created) args.sources.pairs.add(p);
    // The next ranges are fetched while the consumer writes this one: at most `prefetch` ahead.
    plan(args.prefetch);
    yield batch;
  }
}

/** Adds the logs of pairs discovered after `batch` was fetched. */
async function topUp(args: HistoricalSyncArgs, batch: HistoricalBatch, pairs: string[]): Promise<void> {
  const onlyPairs = { ...args.sources, factory: null, mothership: null };
  const { logs } = await fetchRangeLogs(args.rpc, onlyPairs, new Set(pairs), batch.from, batch.to, args);
  if (logs.length === 0) return;
  const headers = await headersFor(args.rpc, logs.map((l) => Number(l.blockNumber)), batch.toBlock);
  assertLogsMatchHeaders(logs, headers);
  for (const h of headers.values()) batch.timestamps.set(h.number, h.timestamp);
  const extra = decodeAll(logs, { ...args.sources, pairs: new Set(pairs) }, [], args.logger);
  batch.logs = [...batch.logs, ...extra].sort((a, b) => a.meta.blockNumber - b.meta.blockNumber || a.meta.logIndex - b.meta.logIndex);
  batch.changes = handleLogs(batch.logs, batch.timestamps);
}
