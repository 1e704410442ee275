import { getHttpRpcClient, type HttpRpcClient } from 'viem/utils';
import type { Logger } from '../../shared/platform/logging';
import type { Metrics } from '../../shared/platform/metrics';
import { backoffDelay, createSemaphore, sleep } from './backoff';
import { classifyRpcError, errorText, failureClassOf, JsonRpcError, RangeTooLargeError, RpcRequestRejectedError, RpcUnavailableError } from './rpc-errors';
import { parseSuggestedSpan } from './log-range';
import { ProviderStats, type ProviderFailureClass, type ProviderState } from './provider-stats';

export type Hex = `0x${string}`;

/** The part of a block header the indexer keeps: enough to check that blocks link up. */
export interface LightBlock {
  number: number;
  hash: Hex;
  parentHash: Hex;
  timestamp: number;
  /** The header's `logsBloom`, when it came from the node (never stored): proves a logs answer complete. */
  logsBloom?: Hex;
}

/** A header as it is kept (window, checkpoints, cursor): the bloom served its check and is dropped. */
export function withoutBloom(b: LightBlock): LightBlock {
  if (b.logsBloom === undefined) return b;
  const { logsBloom: _bloom, ...rest } = b;
  return rest;
}

/** A log as the node returns it (hex quantities). */
export interface RpcLog {
  address: Hex;
  topics: Hex[];
  data: Hex;
  blockNumber: Hex;
  blockHash: Hex;
  transactionHash: Hex;
  logIndex: Hex;
  removed?: boolean;
}

export interface LogFilter {
  address: Hex[];
  topics?: (Hex | Hex[] | null)[];
  fromBlock: number;
  toBlock: number;
}

/** The EIP-234 form: the logs of exactly one block, named by hash (a node without that block errors rather than answering empty). */
export interface BlockLogFilter {
  address: Hex[];
  topics?: (Hex | Hex[] | null)[];
  blockHash: Hex;
}

/**
 * Why an answer that parsed is still not to be believed: it came from a backend behind the
 * others (a missing header, an unknown block), or it lacks what the headers say must be there.
 * The request is tried again like a failed one, another URL first.
 */
export interface AnswerProblem {
  cls: Extract<ProviderFailureClass, 'lagging_backend' | 'incomplete_answer'>;
  message: string;
}

/** Checks an answer before `Rpc` returns it; a problem makes the attempt count as failed. */
export type AnswerCheck<T> = (answer: T) => AnswerProblem | null | Promise<AnswerProblem | null>;

export interface RpcHealth {
  /** False once a request has failed on every URL after its retries; true again after any success. */
  ok: boolean;
  lastError: string | null;
  lastOkAt: number | null;
}

export interface RpcOptions {
  urls: string[];
  chainId: number;
  timeoutMs: number;
  retries: number;
  backoffMs: number;
  backoffMaxMs: number;
  concurrency: number;
  /** Largest response accepted; a larger `eth_getLogs` answer counts as "range too large". */
  maxResponseBytes?: number;
  /** Block headers per JSON-RPC batch. */
  batchSize?: number;
  /** Hedge a read not answered after max(this, 4x its usual latency), at most half the timeout; 0: never. */
  hedgeMinMs?: number;
  logger: Logger;
  metrics?: Metrics;
}

/** Every JSON-RPC call the indexer makes, in one place: retries, fallbacks, timeouts, batching. */
export interface Rpc {
  readonly urls: string[];
  chainId(): Promise<number>;
  latestBlock(): Promise<LightBlock>;
  blockByNumber(n: number): Promise<LightBlock | null>;
  blockByHash(hash: Hex): Promise<LightBlock | null>;
  /** Headers of many blocks in JSON-RPC batches; null where the node does not have the block. */
  blocksByNumber(numbers: number[]): Promise<(LightBlock | null)[]>;
  /**
   * Headers of blocks known to exist (at or below a head some answer reported): a null is a
   * lagging backend, retried like a failure, never handed to the caller.
   */
  requireBlocks(numbers: number[]): Promise<LightBlock[]>;
  /** `blockByHash` of a block some answer named: a null is a lagging backend, retried. */
  requireBlockByHash(hash: Hex): Promise<LightBlock>;
  /** Throws `RangeTooLargeError` when the provider refuses the span; `check` can refuse an answer that parsed. */
  getLogs(filter: LogFilter, check?: AnswerCheck<RpcLog[]>): Promise<RpcLog[]>;
  /** The logs of one block by hash (EIP-234); "unknown block" is a lagging backend, retried. */
  getBlockLogs(filter: BlockLogFilter): Promise<RpcLog[]>;
  getCode(address: Hex, block: number): Promise<Hex>;
  /** Counts a problem the caller saw in answers that each looked fine (a head that went backwards). */
  noteProblem(cls: ProviderFailureClass, detail?: Record<string, unknown>): void;
  /** Each URL's state and the last minute's failures by class, for the status row. */
  providerState(): ProviderState;
  health(): RpcHealth;
  /** Aborts in-flight requests and retry sleeps; later calls fail at once. */
  close(): void;
}

interface Endpoint {
  index: number;
  url: string;
  client: HttpRpcClient;
  /** Failures since the last success: how long the URL sits out. */
  failures: number;
  downUntil: number;
  /** Recent failure rate (each attempt moves it 10 % of the way to 1 or 0): the order URLs are tried in. */
  badness: number;
}

interface Call {
  method: string;
  params: unknown[];
}

const hex = (n: number): Hex => `0x${n.toString(16)}`;

function toLightBlock(raw: unknown): LightBlock | null {
  if (!raw) return null;
  const b = raw as { number: Hex; hash: Hex; parentHash: Hex; timestamp: Hex };
  const bloom = (raw as { logsBloom?: unknown }).logsBloom;
  return {
    number: Number(b.number),
    hash: b.hash.toLowerCase() as Hex,
    parentHash: b.parentHash.toLowerCase() as Hex,
    timestamp: Number(b.timestamp),
    ...(typeof bloom === 'string' ? { logsBloom: bloom as Hex } : {}),
  };
}

/** An answer that parsed but that a check refused: thrown inside `request` only, to be retried. */
class AnswerRefused extends Error {
  constructor(readonly problem: AnswerProblem) {
    super(problem.message);
  }
}

function unwrap(response: { result?: unknown; error?: { code: number; message: string; data?: unknown } }): unknown {
  if (response.error) throw new JsonRpcError(response.error.code, response.error.message, response.error.data);
  return response.result;
}

export function createRpc(opts: RpcOptions): Rpc {
  const http = opts.urls.filter((u) => /^https?:/i.test(u));
  if (http.length === 0) throw new Error(`chain ${opts.chainId}: no http(s) RPC URL among ${opts.urls.length} configured`);
  if (http.length < opts.urls.length) opts.logger.warn('ignoring non-http RPC URLs: the indexer polls over HTTP');
  const abort = new AbortController();
  const endpoints: Endpoint[] = http.map((url, index) => ({
    index,
    url,
    client: getHttpRpcClient(url, {
      timeout: opts.timeoutMs,
      maxResponseBodySize: opts.maxResponseBytes ?? 64 * 1024 * 1024,
      fetchOptions: { signal: abort.signal },
    }),
    failures: 0,
    downUntil: 0,
    badness: 0,
  }));
  const stats = new ProviderStats(opts.chainId, http, opts.logger, opts.metrics);
  /** Recent latency of successful answers per method (ms), for the hedge's delay. */
  const latency = new Map<string, number>();
  const hedgeMinMs = opts.hedgeMinMs ?? 0;
  const hedges = opts.metrics?.counter('rfq_indexer_rpc_hedged_total', 'JSON-RPC reads sent a second time because the first was slow', ['chain_id', 'method']);
  const semaphore = createSemaphore(opts.concurrency);
  const health: RpcHealth = { ok: true, lastError: null, lastOkAt: null };
  const batchSize = opts.batchSize ?? 100;
  const duration = opts.metrics?.histogram('indexer_rpc_seconds', 'JSON-RPC request duration', ['chain_id', 'method'], [0.005, 0.02, 0.1, 0.5, 2, 10]);
  const failuresTotal = opts.metrics?.counter('indexer_rpc_failures_total', 'Failed JSON-RPC attempts', ['chain_id', 'method', 'class']);

  /**
   * By health: among the URLs not sitting out (and not `avoid`, those that just failed this
   * request), the one that failed least lately, the network's order of URLs breaking ties; when every
   * URL sits out, the one due back first.
   */
  function pick(avoid: Set<Endpoint>): Endpoint {
    const now = Date.now();
    const candidates = endpoints.filter((e) => !avoid.has(e));
    const pool = candidates.length > 0 ? candidates : endpoints;
    const serving = pool.filter((e) => e.downUntil <= now);
    if (serving.length > 0) return serving.reduce((a, b) => (b.badness < a.badness - 0.05 ? b : a));
    return pool.reduce((a, b) => (b.downUntil < a.downUntil ? b : a));
  }

  async function send(ep: Endpoint, body: Call | Call[]): Promise<unknown> {
    const started = process.hrtime.bigint();
    try {
      const res = await semaphore.run(() => ep.client.request({ body: body as never }));
      if (Array.isArray(body)) {
        const list = res as unknown as { id: number; result?: unknown; error?: { code: number; message: string } }[];
        // Batch answers may come in any order; they are matched by id.
        const byId = new Map(list.map((r) => [Number(r.id), r]));
        return (body as (Call & { id: number })[]).map((c) => {
          const r = byId.get(c.id);
          if (!r) throw new JsonRpcError(-32603, `batch answer for id ${c.id} missing`);
          return unwrap(r);
        });
      }
      return unwrap(res as never);
    } finally {
      duration?.observe(
        { chain_id: String(opts.chainId), method: Array.isArray(body) ? `batch:${body[0]?.method}` : body.method },
        Number(process.hrtime.bigint() - started) / 1e9,
      );
    }
  }

  /**
   * One attempt on `ep`, hedged: when no answer has come after a few times the usual latency of
   * the method (at least `hedgeMinMs`, at most half the timeout), the same read goes to another
   * URL (or again to the same one) and the first good answer wins. A backend that answers in
   * seconds then costs tens of milliseconds instead of a timeout; reads are idempotent, so the
   * slower twin is simply ignored. A failure before the hedge fires ends the attempt at once.
   */
  async function hedged<T>(ep: Endpoint, body: Call | Call[], method: string, check?: AnswerCheck<T>): Promise<{ result: T; served: Endpoint }> {
    const once = async (target: Endpoint) => {
      stats.request(target.index);
      const started = Date.now();
      const result = (await send(target, body)) as T;
      // The provider's latency, not the check's (which may read more): what the hedge waits on.
      const ms = Date.now() - started;
      const prev = latency.get(method);
      latency.set(method, prev === undefined ? ms : prev * 0.9 + ms * 0.1);
      const problem = check ? await check(result) : null;
      if (problem) throw new AnswerRefused(problem);
      return { result, served: target };
    };
    const first = once(ep);
    if (hedgeMinMs <= 0) return first;
    const usual = latency.get(method);
    const after = Math.min(Math.max(hedgeMinMs, 4 * (usual ?? hedgeMinMs)), opts.timeoutMs / 2);
    return new Promise((resolve, reject) => {
      let settled = false;
      let timer: NodeJS.Timeout | undefined;
      let firstError: unknown;
      const win = (v: { result: T; served: Endpoint }) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(v);
      };
      // The first attempt failing before any twin exists ends the attempt; so does a twin failing
      // (the first is slow: waiting for it out to the timeout is what hedging avoids).
      const lose = (err: unknown, isFirst: boolean) => {
        if (isFirst) firstError = err;
        if (settled || (isFirst && twins > 0)) return;
        settled = true;
        clearTimeout(timer);
        reject(isFirst ? err : (firstError ?? err));
      };
      let twins = 0;
      // Up to two twins, each `after` apart: a twin can meet a slow backend too.
      const hedge = () => {
        if (settled || abort.signal.aborted || twins >= 2) return;
        twins++;
        hedges?.inc({ chain_id: String(opts.chainId), method });
        opts.logger.debug({ method, after_ms: after, twin: twins }, 'rpc read hedged: no answer yet, asking again');
        once(pick(new Set([ep]))).then(win, (err: unknown) => lose(err, false));
        timer = setTimeout(hedge, after);
        timer.unref?.();
      };
      first.then(win, (err: unknown) => lose(err, true));
      timer = setTimeout(hedge, after);
      timer.unref?.();
    });
  }

  let nextId = 1;
  let lastFailed: Endpoint | null = null;
  let highestHead = -1;

  async function request<T = unknown>(body: Call | Call[], range?: { from: number; to: number }, check?: AnswerCheck<T>): Promise<T> {
    const method = Array.isArray(body) ? `${body[0]?.method ?? 'empty'} batch` : body.method;
    const isLogs = !Array.isArray(body) && body.method === 'eth_getLogs';
    if (Array.isArray(body)) for (const c of body as (Call & { id?: number })[]) c.id = nextId++;
    const rejectedBy = new Set<Endpoint>();
    let last: unknown;
    let backoffs = 0;
    for (let attempt = 0; attempt <= opts.retries; attempt++) {
      if (abort.signal.aborted) throw new Error('rpc closed');
      // Another URL first: the one that just failed is tried again only when no other is left.
      const ep = pick(attempt === 0 || !lastFailed ? rejectedBy : new Set([...rejectedBy, lastFailed]));
      try {
        const { result, served } = await hedged<T>(ep, body, method, check);
        served.failures = 0;
        served.downUntil = 0;
        served.badness *= 0.9;
        health.ok = true;
        health.lastOkAt = Date.now();
        return result;
      } catch (err) {
        if (abort.signal.aborted) throw new Error('rpc closed', { cause: err });
        const refused = err instanceof AnswerRefused ? err.problem : null;
        const cls = refused ? 'retryable' : classifyRpcError(err, isLogs);
        const kind = refused ? refused.cls : failureClassOf(err, isLogs);
        failuresTotal?.inc({ chain_id: String(opts.chainId), method: isLogs ? 'eth_getLogs' : method, class: cls });
        const text = refused ? refused.message : errorText(err);
        stats.failure(kind, ep.index, { method, err: text.slice(0, 300) });
        if (cls === 'range' && range) throw new RangeTooLargeError(range.from, range.to, parseSuggestedSpan(text), text);
        last = refused ? new Error(text) : err;
        if (cls === 'rejected') {
          // Another provider may support what this one refuses; once all refused, no retry helps.
          rejectedBy.add(ep);
          if (rejectedBy.size >= endpoints.length) throw new RpcRequestRejectedError(method, (err as { code?: number }).code, text);
          continue;
        }
        lastFailed = ep;
        ep.failures++;
        ep.badness = ep.badness * 0.9 + 0.1;
        // A failing URL sits out 1 s, 2 s, 4 s... (at most a minute) while others serve; when
        // every URL is sitting out, the one due back first is tried anyway.
        ep.downUntil = Date.now() + Math.min(60_000, 1000 * 2 ** Math.min(ep.failures - 1, 6));
        opts.logger.debug({ url_index: ep.index, method, attempt, class: kind, err: text }, 'rpc attempt failed');
        // Overload and failure call for backing off; an answer from a backend behind the head
        // does not (the next one, another URL first, is likely current): it is asked again at once.
        if (refused) continue;
        if (attempt < opts.retries) await sleep(backoffDelay(backoffs++, opts.backoffMs, opts.backoffMaxMs), abort.signal);
      }
    }
    const text = errorText(last);
    health.ok = false;
    health.lastError = `${method}: ${text}`;
    throw new RpcUnavailableError(method, opts.retries + 1, text);
  }

  const call = <T>(method: string, params: unknown[]) => request<T>({ method, params });

  /** Headers in JSON-RPC batches of `batchSize`, fetched side by side; `check` applies per batch. */
  async function headers(numbers: number[], check?: AnswerCheck<unknown[]>): Promise<(LightBlock | null)[]> {
    const chunks: number[][] = [];
    for (let i = 0; i < numbers.length; i += batchSize) chunks.push(numbers.slice(i, i + batchSize));
    const results = await Promise.all(
      chunks.map((chunk) =>
        chunk.length === 1
          ? request<unknown>({ method: 'eth_getBlockByNumber', params: [hex(chunk[0]), false] }, undefined, check && ((r) => check([r]))).then((r) => [r])
          : request<unknown[]>(
              chunk.map((n) => ({ method: 'eth_getBlockByNumber', params: [hex(n), false] })),
              undefined,
              check,
            ),
      ),
    );
    return results.flat().map(toLightBlock);
  }

  const noneMissing: AnswerCheck<unknown[]> = (answers) => {
    const missing = answers.findIndex((a) => !a);
    return missing < 0
      ? null
      : { cls: 'lagging_backend', message: 'a header below the reported head is missing: the answer came from a backend behind the head' };
  };

  return {
    urls: http,
    async chainId() {
      return Number(await call<Hex>('eth_chainId', []));
    },
    async latestBlock() {
      // Behind a load balancer one answer may come from a backend behind another: a head below
      // the highest seen is counted and asked again (twice); a third such answer is believed (a
      // chain can get shorter: a reorg to a lighter fork, a devchain's revert), and the caller
      // treats a head at or below its tip as nothing new, never as a reorg.
      for (let tries = 1; ; tries++) {
        const b = toLightBlock(await call('eth_getBlockByNumber', ['latest', false]));
        if (!b) throw new RpcUnavailableError('eth_getBlockByNumber', 1, 'node returned no latest block');
        if (b.number >= highestHead || tries >= 3) {
          highestHead = b.number;
          return b;
        }
        stats.failure('lagging_backend', null, { head: b.number, highest_seen: highestHead });
      }
    },
    async blockByNumber(n) {
      return toLightBlock(await call('eth_getBlockByNumber', [hex(n), false]));
    },
    async blockByHash(hash) {
      return toLightBlock(await call('eth_getBlockByHash', [hash, false]));
    },
    async blocksByNumber(numbers) {
      return headers(numbers);
    },
    async requireBlocks(numbers) {
      return (await headers(numbers, noneMissing)) as LightBlock[];
    },
    async requireBlockByHash(hash) {
      const raw = await request<unknown>({ method: 'eth_getBlockByHash', params: [hash, false] }, undefined, (r) =>
        r ? null : { cls: 'lagging_backend', message: `block ${hash} named by another answer is unknown to this backend` },
      );
      return toLightBlock(raw)!;
    },
    async getLogs(filter, check) {
      const params = {
        address: filter.address.length === 1 ? filter.address[0] : filter.address,
        fromBlock: hex(filter.fromBlock),
        toBlock: hex(filter.toBlock),
        ...(filter.topics ? { topics: filter.topics } : {}),
      };
      return request<RpcLog[]>({ method: 'eth_getLogs', params: [params] }, { from: filter.fromBlock, to: filter.toBlock }, check);
    },
    async getBlockLogs(filter) {
      const params = {
        address: filter.address.length === 1 ? filter.address[0] : filter.address,
        blockHash: filter.blockHash,
        ...(filter.topics ? { topics: filter.topics } : {}),
      };
      return request<RpcLog[]>({ method: 'eth_getLogs', params: [params] }, undefined, (logs) =>
        logs.every((l) => l.blockHash.toLowerCase() === filter.blockHash.toLowerCase())
          ? null
          : { cls: 'lagging_backend', message: `logs asked for block ${filter.blockHash} name another block` },
      );
    },
    async getCode(address, block) {
      return call<Hex>('eth_getCode', [address, hex(block)]);
    },
    noteProblem(cls, detail = {}) {
      stats.failure(cls, null, detail);
    },
    providerState() {
      return stats.snapshot(endpoints);
    },
    health() {
      return { ...health };
    },
    close() {
      abort.abort();
    },
  };
}
