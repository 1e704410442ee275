import { toEventSelector, type Address, type Hex } from 'viem';
import { priceOracleAbi } from '../../../shared/chain/abis';
import { INDEXED_EVENTS, type EventKind } from '../../../indexer/chain-events/indexed-events';
import type { EmitterRole } from '../../../indexer/types';
import type { RpcLog } from '../../../indexer/rpc/rpc';
import { startTestChain, type TestChain } from '../../support/chain';
import { ACTIVITY_KINDS, runChainActivity } from '../../support/chain-activity';
import { startChaosRpc, type ChaosRpc } from '../../support/chaos-rpc';
import { mineBlocks, waitFor } from './harness';

/**
 * The test support for indexer chaos runs, on a real Hardhat node: each misbehaviour of the
 * chaos proxy alone does exactly what it says (and nothing when off), its choices follow its
 * seed, and the chain activity produces a log of every event the indexer reads.
 */
let chain: TestChain;
let chaos: ChaosRpc;

beforeAll(async () => {
  chain = await startTestChain();
  chaos = await startChaosRpc(chain.rpcUrl, { seed: 42 });
  // Room for ranges wider than the refusal threshold.
  await mineBlocks(chain, 30);
}, 60_000);

afterAll(async () => {
  await chaos?.close();
  await chain?.stop();
});

beforeEach(() => {
  chaos.calm();
  chaos.resetStats();
});

const call = (method: string, params: unknown[] = [], id: number | string = 1) => ({ jsonrpc: '2.0', id, method, params });

interface Reply {
  status: number;
  text: string;
  contentType: string | null;
}

async function post(url: string, body: unknown): Promise<Reply> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, text: await res.text(), contentType: res.headers.get('content-type') };
}

/** A single call through the proxy, answered 200 with a JSON-RPC answer. */
async function viaChaos(method: string, params: unknown[] = []): Promise<{ result?: any; error?: { code: number; message: string } }> {
  const r = await post(chaos.url, call(method, params));
  expect(r.status).toBe(200);
  return JSON.parse(r.text);
}

const hex = (n: number) => `0x${n.toString(16)}`;
const nodeHead = async () => Number(await chain.rpc<Hex>('eth_blockNumber'));
const nodeBlock = (n: number) => chain.rpc<{ hash: Hex; number: Hex }>('eth_getBlockByNumber', [hex(n), false]);

describe('chaos rpc, calm', () => {
  it('forwards single calls, batches and the node’s own errors unchanged', async () => {
    const head = await nodeHead();
    expect(await viaChaos('eth_blockNumber')).toMatchObject({ result: hex(head) });
    const batch = await post(chaos.url, [call('eth_chainId', [], 1), call('no_suchMethod', [], 2)]);
    expect(batch.status).toBe(200);
    const [chainId, unknown] = JSON.parse(batch.text);
    expect(chainId).toEqual({ jsonrpc: '2.0', id: 1, result: '0x7a69' });
    expect(unknown).toMatchObject({ id: 2, error: { code: -32004 } });
    // Hardhat 2's own answer to a block hash it does not know: an error, forwarded as it is.
    expect(await viaChaos('eth_getLogs', [{ blockHash: `0x${'11'.repeat(32)}` }])).toMatchObject({
      error: { code: -32602, message: 'blockHash cannot be found' },
    });
    expect(chaos.stats()).toMatchObject({
      requests: 3,
      batches: 1,
      clean: 3,
      byMethod: { eth_blockNumber: 1, eth_chainId: 1, no_suchMethod: 1, eth_getLogs: 1 },
    });
  });
});

describe('chaos rpc, one behaviour at a time', () => {
  it('rateLimited: HTTP 429 with a -32005 body carrying the id, per call of a batch', async () => {
    chaos.set({ rateLimited: 1 });
    const single = await post(chaos.url, call('eth_blockNumber', [], 7));
    expect(single.status).toBe(429);
    expect(single.text).toBe('{"jsonrpc":"2.0","id":7,"error":{"code":-32005,"message":"Too Many Requests"}}');
    const batch = await post(chaos.url, [call('eth_blockNumber', [], 'a'), call('eth_chainId', [], 'b')]);
    expect(batch.status).toBe(429);
    expect(JSON.parse(batch.text).map((a: { id: string }) => a.id)).toEqual(['a', 'b']);
    expect(chaos.stats().applied).toMatchObject({ rateLimited: 2, serverError: 0, lagging: 0 });
  });

  it('serverError: HTTP 503 with an HTML page', async () => {
    chaos.set({ serverError: 1 });
    const r = await post(chaos.url, call('eth_blockNumber'));
    expect(r).toEqual({ status: 503, text: '<html><body><h1>503 Service Unavailable</h1></body></html>', contentType: 'text/html' });
  });

  it('slow: the real answer, held back at least the configured minimum', async () => {
    chaos.set({ slow: 1, slowMs: [250, 400] });
    const started = performance.now();
    expect(await viaChaos('eth_chainId')).toMatchObject({ result: '0x7a69' });
    // A lower bound only (a timer may fire a fraction of a millisecond early on another clock).
    expect(performance.now() - started).toBeGreaterThanOrEqual(249);
    expect(chaos.stats().applied.slow).toBe(1);
  });

  it("cutBody: HTTP 200 with the first half of the real answer's body, which is no JSON", async () => {
    const whole = await post(chaos.url, call('eth_getBlockByNumber', ['0x1', false]));
    chaos.set({ cutBody: 1 });
    const cut = await post(chaos.url, call('eth_getBlockByNumber', ['0x1', false]));
    expect(cut.status).toBe(200);
    expect(cut.text).toBe(whole.text.slice(0, Math.floor(whole.text.length / 2)));
    expect(() => JSON.parse(cut.text)).toThrow(SyntaxError);
  });

  it('rangeRefused: an eth_getLogs span over the limit is refused with the provider’s message; within it, answered', async () => {
    chaos.set({ rangeRefused: 1 });
    expect(await viaChaos('eth_getLogs', [{ fromBlock: '0x1', toBlock: '0x16' }])).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32005, message: 'query returned more than 10000 results. Try with this block range [0x1, 0x14].' },
    });
    // A span of exactly 20 passes.
    expect(await viaChaos('eth_getLogs', [{ fromBlock: '0x1', toBlock: '0x15' }])).toMatchObject({ result: expect.any(Array) });
    // 'latest' is resolved through the node.
    const head = await nodeHead();
    expect((await viaChaos('eth_getLogs', [{ fromBlock: hex(head - 25), toBlock: 'latest' }])).error!.message).toBe(
      `query returned more than 10000 results. Try with this block range [${hex(head - 25)}, ${hex(head - 6)}].`,
    );
    chaos.set({ rangeRefusedOver: 5 });
    expect((await viaChaos('eth_getLogs', [{ fromBlock: '0xa', toBlock: '0x10' }])).error!.message).toContain('[0xa, 0xe]');
    // Only eth_getLogs, and in a batch only the refused call.
    const batch = JSON.parse((await post(chaos.url, [call('eth_getLogs', [{ fromBlock: '0x1', toBlock: '0x10' }], 1), call('eth_chainId', [], 2)])).text);
    expect(batch).toEqual([expect.objectContaining({ id: 1, error: expect.objectContaining({ code: -32005 }) }), { jsonrpc: '2.0', id: 2, result: '0x7a69' }]);
    expect(chaos.stats().applied.rangeRefused).toBe(4);
  });

  describe('lagging', () => {
    const oracle = () => chain.addresses.priceOracle;
    const priceLogs = (from: number, to: number | string) => ({ address: oracle(), fromBlock: hex(from), toBlock: typeof to === 'number' ? hex(to) : to });
    let head: number;
    let newestTx: Hex;

    beforeAll(async () => {
      // A log in each of the last three blocks: what a backend two behind has and has not seen.
      for (const price of [1n, 2n, 3n]) {
        newestTx = await chain.send(0, oracle(), priceOracleAbi, 'setPrice', [chain.addresses.weth, price * 10n ** 18n]);
      }
      head = await nodeHead();
    });

    it('answers from a backend two blocks behind: head, headers, logs and block-hash queries as such a node would', async () => {
      chaos.set({ lagging: 1 });
      const [top, lagged] = [await nodeBlock(head), await nodeBlock(head - 2)];
      expect(await viaChaos('eth_blockNumber')).toMatchObject({ result: hex(head - 2) });
      for (const tag of ['latest', 'pending', 'safe', 'finalized']) {
        expect((await viaChaos('eth_getBlockByNumber', [tag, false])).result.hash).toBe(lagged.hash);
      }
      expect((await viaChaos('eth_getBlockByNumber', [hex(head), false])).result).toBeNull();
      expect((await viaChaos('eth_getBlockByNumber', [hex(head - 1), false])).result).toBeNull();
      expect((await viaChaos('eth_getBlockByNumber', [hex(head - 2), false])).result.hash).toBe(lagged.hash);
      expect((await viaChaos('eth_getBlockByHash', [top.hash, false])).result).toBeNull();
      expect((await viaChaos('eth_getBlockByHash', [lagged.hash, false])).result.number).toBe(hex(head - 2));

      // Logs: clamped to the backend's head, without an error.
      const upToLagged = await chain.rpc<RpcLog[]>('eth_getLogs', [priceLogs(head - 5, head - 2)]);
      expect(upToLagged).toHaveLength(1);
      expect((await viaChaos('eth_getLogs', [priceLogs(head - 5, 'latest')])).result).toEqual(upToLagged);
      expect((await viaChaos('eth_getLogs', [priceLogs(head - 5, head)])).result).toEqual(upToLagged);
      expect(await viaChaos('eth_getLogs', [priceLogs(head - 1, head)])).toMatchObject({ result: [] });
      // A block it has not seen, by hash: geth's "unknown block".
      expect(await viaChaos('eth_getLogs', [{ blockHash: top.hash }])).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32000, message: 'unknown block' } });
      expect((await viaChaos('eth_getLogs', [{ blockHash: lagged.hash, address: oracle() }])).result).toEqual(upToLagged);
      // Its transactions and state too.
      expect((await viaChaos('eth_getTransactionReceipt', [newestTx])).result).toBeNull();
      expect(await viaChaos('eth_getCode', [oracle(), hex(head)])).toMatchObject({ error: { code: -32000, message: 'header not found' } });

      // One backend per batch.
      const batch = JSON.parse((await post(chaos.url, [call('eth_blockNumber', [], 1), call('eth_getBlockByNumber', ['latest', false], 2)])).text);
      expect([batch[0].result, batch[1].result.number]).toEqual([hex(head - 2), hex(head - 2)]);

      chaos.set({ lagBlocks: 3 });
      expect(await viaChaos('eth_blockNumber')).toMatchObject({ result: hex(head - 3) });
      chaos.set({ lagBlocks: 2 });
    });

    it('at probability 0.5 each answer is from the head or the lagging backend, and the stats say which', async () => {
      chaos.set({ lagging: 0.5 });
      const seen: number[] = [];
      for (let i = 0; i < 40; i++) seen.push(Number((await viaChaos('eth_blockNumber')).result));
      expect(new Set(seen)).toEqual(new Set([head, head - 2]));
      expect(chaos.stats().applied.lagging).toBe(seen.filter((n) => n === head - 2).length);
    });
  });
});

describe('chaos rpc, determinism and lifecycle', () => {
  /** What each of 30 sequential requests got: status and answer. */
  async function sequence(seed: number): Promise<string[]> {
    const p = await startChaosRpc(chain.rpcUrl, { seed });
    try {
      p.set({ rateLimited: 0.2, serverError: 0.1, lagging: 0.5, rangeRefused: 0.5, cutBody: 0.1 });
      const out: string[] = [];
      for (let i = 0; i < 30; i++) {
        const body = i % 3 === 0 ? call('eth_getLogs', [{ fromBlock: '0x1', toBlock: '0x1e' }]) : call('eth_blockNumber');
        const r = await post(p.url, body);
        out.push(`${r.status} ${r.text}`);
      }
      expect(p.seed).toBe(seed);
      return out;
    } finally {
      await p.close();
    }
  }

  it('the same seed gives the same sequence; another seed another', async () => {
    const a = await sequence(7);
    expect(await sequence(7)).toEqual(a);
    expect(await sequence(8)).not.toEqual(a);
    expect(new Set(a.map((s) => s.slice(0, 3))).size).toBeGreaterThan(1);
  });

  it('CHAOS_MIX answers every request, and close() cuts a held answer and its connection', async () => {
    const p = await startChaosRpc(chain.rpcUrl);
    p.full();
    expect(p.behaviours()).toMatchObject({ rateLimited: true, serverError: true, slow: true, cutBody: true, rangeRefused: true, lagging: true });
    p.set({ slowMs: [0, 5] });
    const statuses = new Set<number>();
    for (let i = 0; i < 60; i++) statuses.add((await post(p.url, call('eth_blockNumber'))).status);
    expect([...statuses].every((s) => [200, 429, 503].includes(s))).toBe(true);
    const st = p.stats();
    expect(st.requests).toBe(60);
    expect(st.byMethod.eth_blockNumber).toBe(60);

    p.calm();
    p.set({ slow: 1, slowMs: [60_000, 60_000] });
    const held = post(p.url, call('eth_blockNumber'));
    await waitFor(
      'the held request received',
      async () => p.stats().requests,
      (n) => n === 61,
    );
    await p.close();
    await expect(held).rejects.toThrow();
    await p.close();
  });
});

describe('chain activity', () => {
  /** Contracts allowed to emit each role's events, as the indexer checks them. */
  const emitters = (pairs: Address[]): Record<EmitterRole, Set<string>> => {
    const a = chain.addresses;
    const set = (...xs: string[]) => new Set(xs.map((x) => x.toLowerCase()));
    return {
      factory: set(a.pairFactory),
      mothership: set(a.mothership),
      pair: set(a.pair, ...pairs),
      bondVault: set(a.bondVault),
      lending_market: set(a.lendingMarket),
      price_oracle: set(a.priceOracle),
    };
  };

  it('produces logs of every indexed event, each decodable, over many blocks, and runs again on the same chain', async () => {
    const first = await runChainActivity(chain, { rounds: 2, emptyBlocks: 1 });
    const second = await runChainActivity(chain, { rounds: 1, emptyBlocks: 1 });
    expect(second.fromBlock).toBeGreaterThan(first.toBlock);
    for (const kind of ACTIVITY_KINDS.filter((k) => k !== 'deployToken')) {
      expect(first.sent[kind]).toBeGreaterThanOrEqual(2);
      expect(second.sent[kind]).toBeGreaterThanOrEqual(1);
    }
    expect(first.txs).toBeGreaterThan(Object.values(first.sent).reduce((a, b) => a + b, 0));

    const logs = await chain.rpc<RpcLog[]>('eth_getLogs', [{ fromBlock: hex(first.fromBlock), toBlock: hex(second.toBlock) }]);
    const allowed = emitters([...first.pairs, ...second.pairs]);
    const counts: Partial<Record<EventKind, number>> = {};
    for (const [kind, e] of Object.entries(INDEXED_EVENTS) as [EventKind, (typeof INDEXED_EVENTS)[EventKind]][]) {
      const selector = toEventSelector(e.abi);
      const mine = logs.filter((l) => l.topics[0] === selector && allowed[e.emitter].has(l.address.toLowerCase()));
      // The indexer's own decoder reads each of them (it throws on a layout that does not match).
      for (const l of mine) e.decode(l);
      counts[kind] = mine.length;
    }
    // Three rounds: at least three of each kind (several kinds come more than once a round).
    const missing = Object.entries(counts).filter(([, n]) => n! < 3);
    expect(missing).toEqual([]);
    expect(Object.keys(counts).sort()).toEqual(Object.keys(INDEXED_EVENTS).sort());
    // Logs from the pairs the factory created, too.
    expect(logs.some((l) => first.pairs.map((p) => p.toLowerCase()).includes(l.address.toLowerCase()))).toBe(true);
    // Spread: logs in many blocks, with empty blocks between.
    const blocks = new Set(logs.map((l) => Number(l.blockNumber)));
    expect(blocks.size).toBeGreaterThan(60);
    expect(second.toBlock - first.fromBlock + 1).toBeGreaterThanOrEqual(blocks.size + first.emptyBlocks + second.emptyBlocks);
  }, 120_000);
});
