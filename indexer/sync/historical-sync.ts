import type { DecodedLog } from '../chain-events/decode-log';
import { BackfillReorgedError, ChainInconsistencyError } from '../errors';
import { handleLogs } from '../chain-events/handle-logs';
import type { RangeSizer } from '../rpc/log-range';
import { withoutBloom, type LightBlock, type Rpc } from '../rpc/rpc';
import type { Changeset } from '../store/derived-tables';
import { assertLogsMatchHeaders, decodeAll, fetchAdaptive, fetchRangeLogs, type FetchOptions } from './fetch-logs';
import type { BloomChecker, BloomIndex } from './log-completeness';
import type { Sources } from './sources';

/** One backfill step: every log of [from, to] and the header of `to`, which becomes the cursor. */
export interface HistoricalBatch {
  from: number;
  to: number;
  toBlock: LightBlock;
  /** The header of `from - 1` read after the logs (null for block 0): the range must continue it. */
  parent: LightBlock | null;
  /**
   * The linked headers of every block of the range at or above `denseFrom` (empty when the
   * range ends below it): what the reorg window keeps of the range.
   */
  dense: LightBlock[];
  /** Every header the range read (blocks with logs, `to`, `from - 1`, the dense ones): checkpoints for what the window does not keep. */
  headers: LightBlock[];
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
  /** What the range's headers say about its logs, for answers read for it later (a top-up). */
  blooms: BloomIndex;
}

export interface HistoricalSyncArgs extends FetchOptions {
  rpc: Rpc;
  sources: Sources;
  sizer: RangeSizer;
  /** The indexed block the first range continues (null before anything is indexed). */
  after: LightBlock | null;
  /** Blocks from here on are within reorg reach: every header is read, for the window. */
  denseFrom: number;
  /** Ranges fetched ahead of the one the consumer is writing (0: fetch only when asked). */
  prefetch: number;
  signal: AbortSignal;
  /** Holds every logs answer against the blooms of the range's headers (`log-completeness.ts`). */
  checker: BloomChecker;
}

interface Planned {
  from: number;
  to: number;
  pairs: Set<string>;
  result: Promise<HistoricalBatch>;
}

/**
 * Reads one range. Every header of the range is read first: their blooms are what the logs
 * answer must agree with before it is accepted (a backend behind the head answers a clamped
 * range with fewer logs and no error), and the ones within reorg reach (`denseFrom` on) are the
 * window's part of the range, which must link. The header of `to` is read again after the logs,
 * with those of the blocks holding logs: when it has not changed, the logs came from that chain
 * (a reorg landing in between is retried, never half-written). The header of `from - 1` is read
 * after the logs too, so the consumer can check that the range continues what it already wrote.
 */
async function fetchBatch(args: HistoricalSyncArgs, from: number, to: number, pairs: Set<string>): Promise<HistoricalBatch> {
  const started = Date.now();
  const { toBlock, blooms, dense } = await readRangeHeaders(args, from, to);
  const { logs, created } = await fetchAdaptive(args.rpc, args.sources, pairs, from, to, args.sizer, {
    ...args,
    verify: { checker: args.checker, index: blooms },
  });
  // Each log was held against the header read for its block before it was accepted; `to`, read
  // again now, has not changed since, so those headers and the logs are of the chain that is.
  const headers = await headersOf(args.rpc, [to, ...(from > 0 ? [from - 1] : [])]);
  if (headers.get(to)!.hash !== toBlock.hash) throw new ChainInconsistencyError(`block ${to} changed while its range was read`);
  for (const n of new Set(logs.map((l) => Number(l.blockNumber)))) {
    const kept = blooms.blocks.get(n);
    if (!kept) throw new ChainInconsistencyError(`a log of block ${n} has no header read for it`);
    headers.set(n, kept.block);
  }
  assertLogsMatchHeaders(logs, headers);
  // The dense headers were read before the logs; they lead to the `to` read after them, so they are of the same chain.
  for (let i = 1; i < dense.length; i++) {
    if (dense[i].parentHash !== dense[i - 1].hash)
      throw new ChainInconsistencyError(`fetched blocks ${dense[i - 1].number} and ${dense[i].number} do not link`);
  }
  const parent = headers.get(from - 1) ?? null;
  if (dense.length > 0 && dense[0].number === from && parent && dense[0].parentHash !== parent.hash) {
    throw new ChainInconsistencyError(`fetched blocks ${from - 1} and ${from} do not link`);
  }
  for (const d of dense) if (!headers.has(d.number)) headers.set(d.number, d);
  const decoded = decodeAll(logs, args.sources, [...pairs, ...created], args.logger);
  const timestamps = new Map([...headers.values()].map((h) => [h.number, h.timestamp]));
  return {
    from,
    to,
    toBlock,
    parent,
    dense,
    headers: [...headers.values()],
    logs: decoded,
    timestamps,
    changes: handleLogs(decoded, timestamps),
    created,
    fetchMs: Date.now() - started,
    blooms,
  };
}

/**
 * Every header of [from, to], in batches, keeping only what is needed later: the blooms that may
 * matter, the dense part and `to` (a long range's headers are not all held at once).
 */
async function readRangeHeaders(args: HistoricalSyncArgs, from: number, to: number): Promise<{ toBlock: LightBlock; blooms: BloomIndex; dense: LightBlock[] }> {
  const blooms = args.checker.index([]);
  const dense: LightBlock[] = [];
  let toBlock: LightBlock | null = null;
  const STEP = 2000;
  for (let a = from; a <= to; a += STEP) {
    const b = Math.min(to, a + STEP - 1);
    const part = await args.rpc.requireBlocks(Array.from({ length: b - a + 1 }, (_, i) => a + i));
    args.checker.index(part, blooms);
    for (const h of part) if (h.number >= args.denseFrom) dense.push(withoutBloom(h));
    if (b === to) toBlock = withoutBloom(part[part.length - 1]);
  }
  return { toBlock: toBlock!, blooms, dense };
}

/** Headers of `numbers` (blocks with logs, range ends) in JSON-RPC batches; every one must exist. */
async function headersOf(rpc: Rpc, numbers: number[]): Promise<Map<number, LightBlock>> {
  const wanted = [...new Set(numbers)];
  // Every one exists (the range is at or below a reported head): a missing one is a backend behind, retried in `Rpc`.
  const blocks = await rpc.requireBlocks(wanted);
  return new Map(blocks.map((b) => [b.number, withoutBloom(b)]));
}

/**
 * Backfills [from, to] range by range, in order. Up to `prefetch` ranges are fetched while the
 * consumer writes the current one, so the node and the database work at the same time; nothing
 * else is held, so memory does not grow with the length of the history.
 *
 * A pair discovered in one range must be watched in every later range, including ranges
 * already fetched before it was known: those are topped up with the new pair's logs before
 * they are handed out.
 *
 * Each range must continue the previous one (or `after`): when the block under it changed
 * since, the chain reorganised under the backfill and `BackfillReorgedError` ends it before
 * anything of the new fork is handed out on top of the old one.
 */
export async function* historicalSync(args: HistoricalSyncArgs, from: number, to: number): AsyncGenerator<HistoricalBatch> {
  const queue: Planned[] = [];
  let next = from;
  let previous = args.after;
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
    if (previous && batch.parent && batch.parent.hash !== previous.hash) throw new BackfillReorgedError(previous.number, previous.hash, batch.parent.hash);
    previous = batch.toBlock;
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
  const { logs } = await fetchRangeLogs(args.rpc, onlyPairs, new Set(pairs), batch.from, batch.to, {
    ...args,
    verify: { checker: args.checker, index: batch.blooms },
  });
  if (logs.length === 0) return;
  const headers = await headersOf(args.rpc, [...logs.map((l) => Number(l.blockNumber)), batch.to]);
  if (headers.get(batch.to)!.hash !== batch.toBlock.hash) throw new ChainInconsistencyError(`block ${batch.to} changed before its range was topped up`);
  assertLogsMatchHeaders(logs, headers);
  for (const h of headers.values()) batch.timestamps.set(h.number, h.timestamp);
  const extra = decodeAll(logs, { ...args.sources, pairs: new Set(pairs) }, [], args.logger);
  batch.logs = [...batch.logs, ...extra].sort((a, b) => a.meta.blockNumber - b.meta.blockNumber || a.meta.logIndex - b.meta.logIndex);
  batch.changes = handleLogs(batch.logs, batch.timestamps);
}
