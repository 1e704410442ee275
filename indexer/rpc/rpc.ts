import { getHttpRpcClient, type HttpRpcClient } from 'viem/utils';
import type { Logger } from '../../shared/platform/logging';
import type { Metrics } from '../../shared/platform/metrics';
import { backoffDelay, createSemaphore, sleep } from './backoff';
import { classifyRpcError, errorText, JsonRpcError, RangeTooLargeError, RpcRequestRejectedError, RpcUnavailableError } from './rpc-errors';
import { parseSuggestedSpan } from './log-range';

export type Hex = `0x${string}`;

/** The part of a block header the indexer keeps: enough to check that blocks link up. */
export interface LightBlock {
  number: number;
  hash: Hex;
  parentHash: Hex;
  timestamp: number;
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
  /** Throws `RangeTooLargeError` when the provider refuses the span. */
  getLogs(filter: LogFilter): Promise<RpcLog[]>;
  getCode(address: Hex, block: number): Promise<Hex>;
  health(): RpcHealth;
  /** Aborts in-flight requests and retry sleeps; later calls fail at once. */
  close(): void;
}

interface Endpoint {
  url: string;
  client: HttpRpcClient;
  failures: number;
  downUntil: number;
}

interface Call {
  method: string;
  params: unknown[];
}

const hex = (n: number): Hex => `0x${n.toString(16)}`;

function toLightBlock(raw: unknown): LightBlock | null {
  if (!raw) return null;
  const b = raw as { number: Hex; hash: Hex; parentHash: Hex; timestamp: Hex };
  return { number: Number(b.number), hash: b.hash.toLowerCase() as Hex, parentHash: b.parentHash.toLowerCase() as Hex, timestamp: Number(b.timestamp) };
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
  const endpoints: Endpoint[] = http.map((url) => ({
    url,
    client: getHttpRpcClient(url, {
      timeout: opts.timeoutMs,
      maxResponseBodySize: opts.maxResponseBytes ?? 64 * 1024 * 1024,
      fetchOptions: { signal: abort.signal },
    }),
    failures: 0,
    downUntil: 0,
  }));
  const semaphore = createSemaphore(opts.concurrency);
  const health: RpcHealth = { ok: true, lastError: null, lastOkAt: null };
  const batchSize = opts.batchSize ?? 100;
  const duration = opts.metrics?.histogram('indexer_rpc_seconds', 'JSON-RPC request duration', ['chain_id', 'method'], [0.005, 0.02, 0.1, 0.5, 2, 10]);
  const failuresTotal = opts.metrics?.counter('indexer_rpc_failures_total', 'Failed JSON-RPC attempts', ['chain_id', 'method', 'class']);

  /** The first URL not cooling down after a failure; when all are, the one that recovers first. */
  function pick(exclude: Set<Endpoint>): Endpoint {
    const now = Date.now();
    const candidates = endpoints.filter((e) => !exclude.has(e));
    const pool = candidates.length > 0 ? candidates : endpoints;
    return pool.find((e) => e.downUntil <= now) ?? pool.reduce((a, b) => (b.downUntil < a.downUntil ? b : a));
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

  let nextId = 1;

  async function request(body: Call | Call[], range?: { from: number; to: number }): Promise<unknown> {
    const method = Array.isArray(body) ? `${body[0]?.method ?? 'empty'} batch` : body.method;
    const isLogs = !Array.isArray(body) && body.method === 'eth_getLogs';
    if (Array.isArray(body)) for (const c of body as (Call & { id?: number })[]) c.id = nextId++;
    const rejectedBy = new Set<Endpoint>();
    let last: unknown;
    for (let attempt = 0; attempt <= opts.retries; attempt++) {
      if (abort.signal.aborted) throw new Error('rpc closed');
      const ep = pick(rejectedBy);
      try {
        const result = await send(ep, body);
        ep.failures = 0;
        ep.downUntil = 0;
        health.ok = true;
        health.lastOkAt = Date.now();
        return result;
      } catch (err) {
        if (abort.signal.aborted) throw new Error('rpc closed', { cause: err });
        const cls = classifyRpcError(err, isLogs);
        failuresTotal?.inc({ chain_id: String(opts.chainId), method: isLogs ? 'eth_getLogs' : method, class: cls });
        const text = errorText(err);
        if (cls === 'range' && range) throw new RangeTooLargeError(range.from, range.to, parseSuggestedSpan(text), text);
        last = err;
        if (cls === 'rejected') {
          // Another provider may support what this one refuses; once all refused, no retry helps.
          rejectedBy.add(ep);
          if (rejectedBy.size >= endpoints.length) throw new RpcRequestRejectedError(method, (err as { code?: number }).code, text);
          continue;
        }
        ep.failures++;
        // A failing URL sits out 1 s, 2 s, 4 s... (at most a minute) while others serve; when
        // every URL is cooling down, the one due back first is tried anyway.
        ep.downUntil = Date.now() + Math.min(60_000, 1000 * 2 ** Math.min(ep.failures - 1, 6));
        opts.logger.debug({ url_index: endpoints.indexOf(ep), method, attempt, err: text }, 'rpc attempt failed');
        if (attempt < opts.retries) await sleep(backoffDelay(attempt, opts.backoffMs, opts.backoffMaxMs), abort.signal);
      }
    }
    const text = errorText(last);
    health.ok = false;
    health.lastError = `${method}: ${text}`;
    throw new RpcUnavailableError(method, opts.retries + 1, text);
  }

  const call = <T>(method: string, params: unknown[]) => request({ method, params }) as Promise<T>;

  return {
    urls: http,
    async chainId() {
      return Number(await call<Hex>('eth_chainId', []));
    },
    async latestBlock() {
      const b = toLightBlock(await call('eth_getBlockByNumber', ['latest', false]));
      if (!b) throw new RpcUnavailableError('eth_getBlockByNumber', 1, 'node returned no latest block');
      return b;
    },
    async blockByNumber(n) {
      return toLightBlock(await call('eth_getBlockByNumber', [hex(n), false]));
    },
    async blockByHash(hash) {
      return toLightBlock(await call('eth_getBlockByHash', [hash, false]));
    },
    async blocksByNumber(numbers) {
      const chunks: number[][] = [];
      for (let i = 0; i < numbers.length; i += batchSize) chunks.push(numbers.slice(i, i + batchSize));
      const results = await Promise.all(
        chunks.map((chunk) =>
          chunk.length === 1
            ? call('eth_getBlockByNumber', [hex(chunk[0]), false]).then((r) => [r])
            : (request(chunk.map((n) => ({ method: 'eth_getBlockByNumber', params: [hex(n), false] }))) as Promise<unknown[]>),
        ),
      );
      return results.flat().map(toLightBlock);
    },
    async getLogs(filter) {
      const params = {
        address: filter.address.length === 1 ? filter.address[0] : filter.address,
        fromBlock: hex(filter.fromBlock),
        toBlock: hex(filter.toBlock),
        ...(filter.topics ? { topics: filter.topics } : {}),
      };
      return (await request({ method: 'eth_getLogs', params: [params] }, { from: filter.fromBlock, to: filter.toBlock })) as RpcLog[];
    },
    async getCode(address, block) {
      return call<Hex>('eth_getCode', [address, hex(block)]);
    },
    health() {
      return { ...health };
    },
    close() {
      abort.abort();
    },
  };
}
