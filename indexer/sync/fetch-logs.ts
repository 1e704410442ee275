import type { Logger } from '../../shared/platform/logging';
import { decodeLog, EVENT_SELECTORS, PAIR_CREATED_SELECTOR, type DecodedLog } from '../chain-events/decode-log';
import { ChainInconsistencyError } from '../errors';
import type { RangeSizer } from '../rpc/log-range';
import { RangeTooLargeError } from '../rpc/rpc-errors';
import type { Hex, LightBlock, Rpc, RpcLog } from '../rpc/rpc';
import type { BloomChecker, BloomIndex } from './log-completeness';
import { roleOf, watchedAddresses, type Sources } from './sources';

export interface FetchOptions {
  maxAddresses: number;
  logger: Logger;
  /**
   * The headers of the range, read before its logs: every answer is held against them
   * (`log-completeness.ts`) and refused, then retried, when it is not complete.
   */
  verify?: { checker: BloomChecker; index: BloomIndex };
}

const byPosition = (a: RpcLog, b: RpcLog) => Number(a.blockNumber) - Number(b.blockNumber) || Number(a.logIndex) - Number(b.logIndex);

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** Where logs are read: a range of heights, or one block by hash (EIP-234). */
export type LogWindow = { from: number; to: number } | { blockHash: Hex; number: number };

async function logsOf(rpc: Rpc, addresses: Hex[], where: LogWindow, opts: FetchOptions): Promise<RpcLog[]> {
  if (addresses.length === 0) return [];
  const parts = await Promise.all(
    chunks(addresses, opts.maxAddresses).map((address) => {
      if ('blockHash' in where) return rpc.getBlockLogs({ address, topics: [EVENT_SELECTORS], blockHash: where.blockHash });
      const check = opts.verify && opts.verify.checker.answerCheck(rpc, opts.verify.index, address, where.from, where.to);
      return rpc.getLogs({ address, topics: [EVENT_SELECTORS], fromBlock: where.from, toBlock: where.to }, check);
    }),
  );
  return parts.length === 1 ? parts[0] : parts.flat().sort(byPosition);
}

/**
 * Logs of [from, to] for the watched contracts, including pairs the factory creates inside the
 * range: their logs before creation cannot exist, so they are fetched from their creation block
 * on and merged. Returns the created pairs (lower-case) so later ranges watch them too.
 */
export async function fetchRangeLogs(
  rpc: Rpc,
  sources: Sources,
  pairs: ReadonlySet<string>,
  from: number,
  to: number,
  opts: FetchOptions,
  byHash?: Hex,
): Promise<{ logs: RpcLog[]; created: string[] }> {
  const where: LogWindow = byHash ? { blockHash: byHash, number: from } : { from, to };
  const logs = await logsOf(rpc, watchedAddresses(sources, pairs), where, opts);
  const created: { pair: string; block: number }[] = [];
  for (const log of logs) {
    if (log.topics[0]?.toLowerCase() !== PAIR_CREATED_SELECTOR || log.address.toLowerCase() !== sources.factory) continue;
    const pair = `0x${log.topics[1].slice(26)}`.toLowerCase();
    if (!pairs.has(pair)) created.push({ pair, block: Number(log.blockNumber) });
  }
  if (created.length === 0) return { logs, created: [] };
  const since = Math.min(...created.map((c) => c.block));
  const children = await logsOf(
    rpc,
    created.map((c) => c.pair as Hex),
    byHash ? where : { from: since, to },
    opts,
  );
  return { logs: [...logs, ...children].sort(byPosition), created: created.map((c) => c.pair) };
}

/**
 * `fetchRangeLogs` over a span the provider may refuse: on "range too large" the span is split
 * (to the provider's hint, or in halves) and the pieces fetched in order, and the sizer learns.
 */
export async function fetchAdaptive(
  rpc: Rpc,
  sources: Sources,
  pairs: ReadonlySet<string>,
  from: number,
  to: number,
  sizer: RangeSizer,
  opts: FetchOptions,
): Promise<{ logs: RpcLog[]; created: string[] }> {
  try {
    const res = await fetchRangeLogs(rpc, sources, pairs, from, to, opts);
    sizer.onSuccess(to - from + 1, res.logs.length);
    return res;
  } catch (err) {
    if (!(err instanceof RangeTooLargeError) || from === to) throw err;
    sizer.onTooLarge(to - from + 1, err.suggestedSpan);
    opts.logger.debug({ from, to, next_span: sizer.span }, 'eth_getLogs range refused; splitting');
    const known = new Set(pairs);
    const logs: RpcLog[] = [];
    const created: string[] = [];
    for (let a = from; a <= to;) {
      const b = Math.min(to, a + Math.max(1, Math.min(sizer.span, to - from)) - 1);
      const part = await fetchAdaptive(rpc, sources, known, a, b, sizer, opts);
      for (const log of part.logs) logs.push(log);
      for (const p of part.created) {
        known.add(p);
        created.push(p);
      }
      a = b + 1;
    }
    return { logs, created };
  }
}

/**
 * The logs of one block read by its hash (EIP-234): what the realtime path uses for a step of
 * one block, since a backend that does not have the block errors rather than answering empty.
 */
export async function fetchBlockLogs(rpc: Rpc, sources: Sources, pairs: ReadonlySet<string>, block: LightBlock, opts: FetchOptions) {
  return fetchRangeLogs(rpc, sources, pairs, block.number, block.number, opts, block.hash);
}

/**
 * Checks that each log belongs to the block header fetched for its height; a mismatch means
 * the node's answers came from different forks.
 */
export function assertLogsMatchHeaders(logs: readonly RpcLog[], headers: ReadonlyMap<number, LightBlock>): void {
  for (const log of logs) {
    const h = headers.get(Number(log.blockNumber));
    if (!h) throw new ChainInconsistencyError(`no header for block ${Number(log.blockNumber)} of a log`);
    if (log.blockHash.toLowerCase() !== h.hash) {
      throw new ChainInconsistencyError(`log in block ${h.number} names hash ${log.blockHash}, the header says ${h.hash}`);
    }
    if (log.removed) throw new ChainInconsistencyError(`node returned a removed log in block ${h.number}`);
  }
}

/** Decodes the logs we read, skipping (with a warning) any that do not decode. */
export function decodeAll(logs: readonly RpcLog[], sources: Sources, extraPairs: Iterable<string>, logger: Logger): DecodedLog[] {
  const pairs = new Set([...sources.pairs, ...extraPairs]);
  const role = roleOf({ ...sources, pairs });
  const out: DecodedLog[] = [];
  for (const log of logs) {
    try {
      const d = decodeLog(log, role);
      if (d) out.push(d);
    } catch (err) {
      logger.warn({ block: Number(log.blockNumber), log_index: Number(log.logIndex), err: (err as Error).message }, 'skipping a log that does not decode');
    }
  }
  return out;
}
