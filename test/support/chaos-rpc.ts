import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * A JSON-RPC proxy in front of a real node that misbehaves the way hosted providers do: rate
 * limits, 503 pages from a load balancer, slow answers, truncated bodies, refused `eth_getLogs`
 * spans and answers from a backend a few blocks behind the others. The node behind it is real
 * (the test's Hardhat node); only the transport in between lies.
 *
 *   const chaos = await startChaosRpc(chain.rpcUrl);
 *   chaos.set({ lagging: 1 });     // every answer from a backend 2 blocks behind
 *   chaos.full();                  // CHAOS_MIX: everything at its default probability
 *   chaos.calm();                  // a faithful proxy again
 *   afterAll(() => chaos.close());
 *
 * Every choice comes from a seeded PRNG (`seed`: CHAOS_SEED or a constant), so a failing run is
 * reproduced by the same seed and the same request sequence. The draws per HTTP request are fixed
 * whatever is switched on: six (rate limit, 503, slow, slow delay, cut body, lagging backend), then
 * one per `eth_getLogs` call in the order of the batch (range refusal). Switching a behaviour on or
 * off therefore never shifts the sequence the others see. Concurrent requests draw in the order
 * their bodies finish arriving.
 *
 * Hardhat 2 itself answers `eth_getLogs` with a `blockHash` it does not know with an error
 * (HTTP 200, `{"code":-32602,"message":"blockHash cannot be found"}`), so the proxy forwards that
 * answer unchanged in every mode; only a lagging backend's "unknown block" (a block the node has
 * but the backend has not seen yet) is the proxy's own, in geth's words (-32000).
 */

/** Off (`false`), on at the behaviour's default probability (`true`), or on with this probability (0..1). */
export type Chance = boolean | number;

export interface ChaosBehaviours {
  /** HTTP 429 with a JSON-RPC -32005 "Too Many Requests" body (per HTTP request, batches whole). */
  rateLimited: Chance;
  /** HTTP 503 with an HTML page, as a load balancer answers (per HTTP request). */
  serverError: Chance;
  /** The answer, whatever it is, is held back `slowMs` (uniform) before it is sent. */
  slow: Chance;
  slowMs: readonly [number, number];
  /** HTTP 200 with the first half of the real answer's body: invalid JSON. */
  cutBody: Chance;
  /** An `eth_getLogs` spanning more than `rangeRefusedOver` blocks (toBlock - fromBlock) is refused, -32005 (per call). */
  rangeRefused: Chance;
  rangeRefusedOver: number;
  /** The whole HTTP request is answered by a backend `lagBlocks` behind the node's head (see `answerLagged`). */
  lagging: Chance;
  lagBlocks: number;
}

export type ChaosBehaviourName = 'rateLimited' | 'serverError' | 'slow' | 'cutBody' | 'rangeRefused' | 'lagging';

export const CHAOS_BEHAVIOUR_NAMES: readonly ChaosBehaviourName[] = ['rateLimited', 'serverError', 'slow', 'cutBody', 'rangeRefused', 'lagging'];

/** What `true` means for each behaviour. */
export const CHAOS_DEFAULT_PROBABILITY: Readonly<Record<ChaosBehaviourName, number>> = {
  rateLimited: 0.07,
  serverError: 0.03,
  slow: 0.02,
  cutBody: 0.01,
  rangeRefused: 0.5,
  lagging: 0.35,
};

/** Everything off, tuning at its defaults: a faithful proxy. */
export const CHAOS_CALM: Readonly<ChaosBehaviours> = {
  rateLimited: false,
  serverError: false,
  slow: false,
  slowMs: [1500, 4000],
  cutBody: false,
  rangeRefused: false,
  rangeRefusedOver: 20,
  lagging: false,
  lagBlocks: 2,
};

/** Every behaviour on at its default probability. */
export const CHAOS_MIX: Readonly<Partial<ChaosBehaviours>> = {
  rateLimited: true,
  serverError: true,
  slow: true,
  cutBody: true,
  rangeRefused: true,
  lagging: true,
};

export interface ChaosStats {
  /** HTTP requests received. */
  requests: number;
  /** HTTP requests whose body was a JSON array. */
  batches: number;
  /**
   * How often each behaviour was applied: HTTP requests for all but `rangeRefused`, which counts
   * refused `eth_getLogs` calls. A request can have several (slow and cut).
   */
  applied: Record<ChaosBehaviourName, number>;
  /** HTTP requests answered with no behaviour applied. */
  clean: number;
  /** JSON-RPC calls received per method (each entry of a batch counts); `(invalid)` for a body that is no JSON-RPC. */
  byMethod: Record<string, number>;
  /** HTTP requests that failed for a reason of the upstream's (unreachable, cut off): answered 502. */
  upstreamFailures: number;
}

export interface ChaosRpc {
  /** http://127.0.0.1:PORT */
  readonly url: string;
  readonly seed: number;
  /** Changes some behaviours (or their tuning) from the next request on; the rest stay as they are. */
  set(behaviours: Partial<ChaosBehaviours>): void;
  /** Every behaviour off (tuning kept). */
  calm(): void;
  /** CHAOS_MIX: every behaviour on at its default probability. */
  full(): void;
  /** The behaviours in force. */
  behaviours(): ChaosBehaviours;
  stats(): ChaosStats;
  resetStats(): void;
  /** Stops listening, cuts open connections and pending slow answers; safe to call twice. */
  close(): Promise<void>;
}

/** Used when neither `opts.seed` nor CHAOS_SEED gives one. */
export const DEFAULT_CHAOS_SEED = 0x5eed_c4a0;

interface RpcCall {
  jsonrpc?: unknown;
  id?: unknown;
  method: string;
  params?: unknown;
}

interface RpcError {
  code: number;
  message: string;
  data?: unknown;
}

interface RpcAnswer {
  jsonrpc: '2.0';
  id: unknown;
  result?: unknown;
  error?: RpcError;
}

interface HttpAnswer {
  status: number;
  contentType: string;
  body: Buffer;
}

/** The upstream answered something that is not a JSON-RPC answer: that HTTP answer goes to the client as it is. */
class UpstreamAnswer extends Error {
  constructor(readonly answer: HttpAnswer) {
    super(`upstream answered HTTP ${answer.status}`);
  }
}

/** The draws of one HTTP request (see the header comment for their fixed order). */
interface Draws {
  rateLimited: number;
  serverError: number;
  slow: number;
  slowDelay: number;
  cutBody: number;
  lagging: number;
  /** One per eth_getLogs call, in batch order. */
  rangeRefused: number[];
}

/** Methods that read state at a block, and where their block parameter is. */
const STATE_BLOCK_PARAM: Readonly<Record<string, number>> = {
  eth_getCode: 1,
  eth_getBalance: 1,
  eth_getTransactionCount: 1,
  eth_getStorageAt: 2,
  eth_call: 1,
};

const SERVER_ERROR_PAGE = '<html><body><h1>503 Service Unavailable</h1></body></html>';

/** mulberry32: a tiny 32-bit PRNG, plenty for picking misbehaviours reproducibly. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function seedFromEnv(): number | undefined {
  const raw = process.env.CHAOS_SEED;
  if (raw === undefined || raw.trim() === '') return undefined;
  const n = Number(raw);
  if (!Number.isSafeInteger(n)) throw new Error(`CHAOS_SEED must be an integer, got ${JSON.stringify(raw)}`);
  return n;
}

function probability(name: ChaosBehaviourName, c: Chance): number {
  if (c === false) return 0;
  if (c === true) return CHAOS_DEFAULT_PROBABILITY[name];
  if (!(c >= 0 && c <= 1)) throw new RangeError(`chaos ${name}: probability must be within 0..1, got ${c}`);
  return c;
}

function checkTuning(b: ChaosBehaviours): void {
  for (const name of CHAOS_BEHAVIOUR_NAMES) probability(name, b[name]);
  const [lo, hi] = b.slowMs;
  if (!(lo >= 0 && hi >= lo)) throw new RangeError(`chaos slowMs must be [min, max] with 0 <= min <= max, got [${lo}, ${hi}]`);
  if (!(Number.isInteger(b.rangeRefusedOver) && b.rangeRefusedOver >= 1)) throw new RangeError('chaos rangeRefusedOver must be a positive integer');
  if (!(Number.isInteger(b.lagBlocks) && b.lagBlocks >= 0)) throw new RangeError('chaos lagBlocks must be a non-negative integer');
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isCall = (v: unknown): v is RpcCall => isObject(v) && typeof v.method === 'string';
const hex = (n: number) => `0x${n.toString(16)}`;

/** A block number parameter (hex string or number), or null for a tag or anything else. */
function blockNumberParam(v: unknown): number | null {
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return v;
  if (typeof v === 'string' && /^0x[0-9a-fA-F]+$/.test(v)) return Number.parseInt(v, 16);
  return null;
}

/** `blockNumber` (receipts, transactions) or `number` (blocks) of a result, when it has one. */
function numberOf(result: unknown, field: 'number' | 'blockNumber'): number | null {
  return isObject(result) ? blockNumberParam(result[field]) : null;
}

const emptyStats = (): ChaosStats => ({
  requests: 0,
  batches: 0,
  applied: { rateLimited: 0, serverError: 0, slow: 0, cutBody: 0, rangeRefused: 0, lagging: 0 },
  clean: 0,
  byMethod: {},
  upstreamFailures: 0,
});

/** Starts the proxy on a free 127.0.0.1 port in front of `upstream` (an HTTP JSON-RPC URL), everything off. */
export async function startChaosRpc(upstream: string, opts: { seed?: number } = {}): Promise<ChaosRpc> {
  const seed = opts.seed ?? seedFromEnv() ?? DEFAULT_CHAOS_SEED;
  const random = prng(seed);
  const target = new URL(upstream);
  if (target.protocol !== 'http:') throw new Error(`chaos rpc: upstream must be an http:// URL, got ${upstream}`);
  // Kept-alive upstream connections, as a provider's frontend keeps to its backends; destroyed on close.
  const agent = new http.Agent({ keepAlive: true, maxSockets: 32 });
  let behaviours: ChaosBehaviours = { ...CHAOS_CALM };
  let stats = emptyStats();
  const sockets = new Set<Socket>();
  const sleeping = new Set<{ timer: NodeJS.Timeout; wake: () => void }>();
  let closed = false;

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const entry = {
        timer: setTimeout(() => {
          sleeping.delete(entry);
          resolve();
        }, ms),
        wake: resolve,
      };
      sleeping.add(entry);
    });

  /** One POST to the upstream. A kept-alive socket the node closed meanwhile fails once: that is retried on a new one. */
  const post = (body: Buffer | string, retried = false): Promise<HttpAnswer> =>
    new Promise<HttpAnswer>((resolve, reject) => {
      const payload = typeof body === 'string' ? Buffer.from(body) : body;
      const req = http.request(
        {
          hostname: target.hostname,
          port: target.port || 80,
          path: `${target.pathname}${target.search}`,
          method: 'POST',
          agent,
          headers: { 'content-type': 'application/json', 'content-length': payload.length },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('error', reject);
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 502, contentType: res.headers['content-type'] ?? 'application/json', body: Buffer.concat(chunks) }),
          );
        },
      );
      req.on('error', (err: NodeJS.ErrnoException) => {
        if (req.reusedSocket && !retried && !closed && (err.code === 'ECONNRESET' || err.code === 'EPIPE')) {
          post(payload, true).then(resolve, reject);
        } else {
          reject(err);
        }
      });
      req.end(payload);
    });

  /** One call forwarded as it is; its JSON-RPC answer, error answers included. */
  const forward = async (call: RpcCall): Promise<RpcAnswer> => {
    const answer = await post(JSON.stringify({ jsonrpc: '2.0', id: call.id ?? null, method: call.method, params: call.params ?? [] }));
    if (answer.status !== 200) throw new UpstreamAnswer(answer);
    try {
      const parsed = JSON.parse(answer.body.toString('utf8')) as unknown;
      if (isObject(parsed) && ('result' in parsed || 'error' in parsed)) return parsed as unknown as RpcAnswer;
    } catch {
      // Not JSON: handed on below as the upstream said it.
    }
    throw new UpstreamAnswer(answer);
  };

  /** The result of an internal call (the proxy's own look-ups): an error answer is the upstream's problem. */
  const lookup = async (method: string, params: unknown[]): Promise<unknown> => {
    const a = await forward({ id: 0, method, params });
    if (a.error) throw new Error(`chaos rpc: upstream ${method} failed: ${a.error.message}`);
    return a.result;
  };

  const ok = (call: RpcCall, result: unknown): RpcAnswer => ({ jsonrpc: '2.0', id: call.id ?? null, result });
  const fail = (call: RpcCall, code: number, message: string): RpcAnswer => ({ jsonrpc: '2.0', id: call.id ?? null, error: { code, message } });

  /** How one request sees the chain: the node's head, or a lagging backend's (`lagHead`). */
  interface View {
    lagHead: number | null;
    head(): Promise<number>;
    /** This call may be refused for its span (its draw hit). */
    refuse: boolean;
    over: number;
    refused(): void;
  }

  /** A block parameter as a number in `view`; null when it is none (malformed: the upstream decides). */
  const resolveBlock = async (tag: unknown, view: View): Promise<number | null> => {
    const n = blockNumberParam(tag);
    if (n !== null) return n;
    if (tag === 'earliest') return 0;
    if (tag === 'latest' || tag === 'pending') return view.lagHead ?? (await view.head());
    if (tag === 'safe' || tag === 'finalized') {
      const b = numberOf(await lookup('eth_getBlockByNumber', [tag, false]), 'number');
      if (b === null) return null;
      return view.lagHead === null ? b : Math.min(b, view.lagHead);
    }
    return null;
  };

  const getLogs = async (call: RpcCall, filter: Record<string, unknown>, view: View): Promise<RpcAnswer> => {
    const L = view.lagHead;
    if (filter.blockHash !== undefined) {
      if (L === null) return forward(call);
      // A backend that has not seen the block yet does not know its hash: geth's answer.
      const n = numberOf(await lookup('eth_getBlockByHash', [filter.blockHash, false]), 'number');
      return n !== null && n > L ? fail(call, -32000, 'unknown block') : forward(call);
    }
    if (L === null && !view.refuse) return forward(call);
    const from = await resolveBlock(filter.fromBlock ?? 'latest', view);
    let to = await resolveBlock(filter.toBlock ?? 'latest', view);
    if (from === null || to === null) return forward(call);
    if (L !== null) {
      // The backend has logs up to its own head: nothing to say beyond it, and no error either.
      if (from > L) return ok(call, []);
      to = Math.min(to, L);
    }
    if (view.refuse && to - from > view.over) {
      view.refused();
      return fail(call, -32005, `query returned more than 10000 results. Try with this block range [${hex(from)}, ${hex(from + view.over - 1)}].`);
    }
    if (L === null) return forward(call);
    return forward({ ...call, params: [{ ...filter, fromBlock: hex(from), toBlock: hex(to) }] });
  };

  /**
   * A call answered by a backend whose head is `L` (below the node's): it does not know the
   * newer blocks, their transactions, or the state after them, and answers as geth does.
   */
  const answerLagged = async (call: RpcCall, params: unknown[], L: number, view: View): Promise<RpcAnswer> => {
    switch (call.method) {
      case 'eth_blockNumber':
        return ok(call, hex(L));
      case 'eth_getBlockByNumber': {
        const tag = params[0];
        // Its newest block is its pending block's parent too (Hardhat's pending block has no number to compare).
        if (tag === 'latest' || tag === 'pending') return forward({ ...call, params: [hex(L), ...params.slice(1)] });
        if (tag === 'safe' || tag === 'finalized') {
          const a = await forward(call);
          const n = numberOf(a.result, 'number');
          return n !== null && n > L ? forward({ ...call, params: [hex(L), ...params.slice(1)] }) : a;
        }
        const n = blockNumberParam(tag);
        return n !== null && n > L ? ok(call, null) : forward(call);
      }
      case 'eth_getBlockByHash': {
        const a = await forward(call);
        const n = numberOf(a.result, 'number');
        return n !== null && n > L ? ok(call, null) : a;
      }
      case 'eth_getTransactionReceipt':
      case 'eth_getTransactionByHash': {
        const a = await forward(call);
        const n = numberOf(a.result, 'blockNumber');
        return n !== null && n > L ? ok(call, null) : a;
      }
      default: {
        const at = STATE_BLOCK_PARAM[call.method];
        if (at === undefined) return forward(call);
        const tag = params[at] ?? 'latest';
        // EIP-1898 ({ blockHash }) and anything unexpected: the upstream's answer.
        if (isObject(tag)) return forward(call);
        const n = await resolveBlock(tag, view);
        if (n === null) return forward(call);
        if (n > L) return fail(call, -32000, 'header not found');
        const next = [...params];
        while (next.length < at) next.push(null);
        next[at] = hex(n);
        return forward({ ...call, params: next });
      }
    }
  };

  const answerCall = async (call: RpcCall, view: View): Promise<RpcAnswer> => {
    const params = Array.isArray(call.params) ? (call.params as unknown[]) : [];
    if (call.method === 'eth_getLogs' && isObject(params[0])) return getLogs(call, params[0], view);
    if (view.lagHead === null) return forward(call);
    return answerLagged(call, params, view.lagHead, view);
  };

  const json = (status: number, value: unknown): HttpAnswer => ({ status, contentType: 'application/json', body: Buffer.from(JSON.stringify(value)) });

  /** The node's answer, through the lagging backend and the range refusals this request drew. */
  const answerRequest = async (
    raw: Buffer,
    parsed: unknown,
    calls: RpcCall[],
    d: Draws,
    b: ChaosBehaviours,
    applied: Set<ChaosBehaviourName>,
    counted: { refusedCalls: number },
  ): Promise<HttpAnswer> => {
    const lagging = d.lagging < probability('lagging', b.lagging);
    const refuseP = probability('rangeRefused', b.rangeRefused);
    const logsCalls = calls.filter((c) => c.method === 'eth_getLogs');
    const refuse = new Map(logsCalls.map((c, i) => [c, d.rangeRefused[i] < refuseP]));
    const wellFormed = calls.length > 0 && (Array.isArray(parsed) ? calls.length === parsed.length : true);
    if (!wellFormed || (!lagging && ![...refuse.values()].some(Boolean))) {
      // Nothing to change: the node's own answer, byte for byte (its batch handling, its errors).
      return post(raw);
    }
    let headRead: Promise<number> | null = null;
    const head = () => (headRead ??= lookup('eth_blockNumber', []).then((h) => Number(h as string)));
    const lagHead = lagging ? Math.max(0, (await head()) - b.lagBlocks) : null;
    if (lagging) applied.add('lagging');
    const refused = () => {
      applied.add('rangeRefused');
      counted.refusedCalls++;
    };
    const answers = await Promise.all(calls.map((c) => answerCall(c, { lagHead, head, refuse: refuse.get(c) ?? false, over: b.rangeRefusedOver, refused })));
    return json(200, Array.isArray(parsed) ? answers : answers[0]);
  };

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    req.on('error', () => undefined);
    res.on('error', () => undefined);
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks);
    stats.requests++;
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw.toString('utf8'));
    } catch {
      parsed = undefined;
    }
    if (Array.isArray(parsed)) stats.batches++;
    const calls = (Array.isArray(parsed) ? parsed : [parsed]).filter(isCall);
    if (calls.length === 0) stats.byMethod['(invalid)'] = (stats.byMethod['(invalid)'] ?? 0) + 1;
    for (const c of calls) stats.byMethod[c.method] = (stats.byMethod[c.method] ?? 0) + 1;

    // Drawn at once, before any await: the sequence depends only on the order requests arrive.
    const d: Draws = {
      rateLimited: random(),
      serverError: random(),
      slow: random(),
      slowDelay: random(),
      cutBody: random(),
      lagging: random(),
      rangeRefused: calls.filter((c) => c.method === 'eth_getLogs').map(() => random()),
    };
    const b = behaviours;
    const applied = new Set<ChaosBehaviourName>();
    const counted = { refusedCalls: 0 };
    const hit = (name: ChaosBehaviourName, draw: number) => {
      const yes = draw < probability(name, b[name]);
      if (yes) applied.add(name);
      return yes;
    };

    let answer: HttpAnswer;
    if (hit('rateLimited', d.rateLimited)) {
      const error = { code: -32005, message: 'Too Many Requests' };
      const ids = calls.map((c) => ({ jsonrpc: '2.0', id: c.id ?? null, error }));
      answer = json(429, Array.isArray(parsed) ? ids : (ids[0] ?? { jsonrpc: '2.0', id: null, error }));
    } else if (hit('serverError', d.serverError)) {
      answer = { status: 503, contentType: 'text/html', body: Buffer.from(SERVER_ERROR_PAGE) };
    } else {
      try {
        answer = await answerRequest(raw, parsed, calls, d, b, applied, counted);
      } catch (err) {
        if (err instanceof UpstreamAnswer) {
          answer = err.answer;
        } else {
          stats.upstreamFailures++;
          answer = json(502, { jsonrpc: '2.0', id: null, error: { code: -32603, message: `chaos rpc: upstream failed: ${(err as Error).message}` } });
        }
      }
      if (answer.status === 200 && hit('cutBody', d.cutBody)) answer = { ...answer, body: answer.body.subarray(0, Math.floor(answer.body.length / 2)) };
    }
    if (hit('slow', d.slow)) {
      const [lo, hi] = b.slowMs;
      await sleep(lo + d.slowDelay * (hi - lo));
    }
    // rangeRefused counts refused calls; every other behaviour counts requests.
    for (const name of applied) stats.applied[name] += name === 'rangeRefused' ? counted.refusedCalls : 1;
    if (applied.size === 0) stats.clean++;
    // The client may have given up (its timeout) or the proxy closed meanwhile: nobody to answer.
    if (res.destroyed || closed) return;
    res.writeHead(answer.status, { 'content-type': answer.contentType, 'content-length': answer.body.length });
    res.end(answer.body);
  };

  const server = http.createServer((req, res) => {
    if (req.method !== 'POST') {
      res.writeHead(405, { allow: 'POST' }).end();
      return;
    }
    handle(req, res).catch(() => {
      // Only a broken client connection gets here: there is nobody left to answer.
      if (!res.headersSent && !res.destroyed) res.writeHead(500).end();
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  // HTTP only: a WebSocket client (newHeads) is refused, as by a provider's HTTP-only endpoint.
  server.on('upgrade', (_req, socket: Socket) => socket.destroy());

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;

  const set = (next: Partial<ChaosBehaviours>) => {
    const merged = { ...behaviours, ...next };
    checkTuning(merged);
    behaviours = merged;
  };

  return {
    url: `http://127.0.0.1:${port}`,
    seed,
    set,
    calm() {
      behaviours = { ...behaviours, rateLimited: false, serverError: false, slow: false, cutBody: false, rangeRefused: false, lagging: false };
    },
    full: () => set(CHAOS_MIX),
    behaviours: () => ({ ...behaviours }),
    stats: () => ({ ...stats, applied: { ...stats.applied }, byMethod: { ...stats.byMethod } }),
    resetStats() {
      stats = emptyStats();
    },
    async close() {
      if (closed) return;
      closed = true;
      const done = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const s of sockets) s.destroy();
      for (const entry of sleeping) {
        clearTimeout(entry.timer);
        entry.wake();
      }
      sleeping.clear();
      agent.destroy();
      await done;
    },
  };
}
