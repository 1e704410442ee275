import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRpc } from '../../../indexer/rpc/rpc';
import { RangeTooLargeError, RpcRequestRejectedError, RpcUnavailableError } from '../../../indexer/rpc/rpc-errors';
import { createLogger } from '../../../shared/platform/logging';
import { Metrics } from '../../../shared/platform/metrics';

type Handler = (body: { id: number; method: string; params: unknown[] } | { id: number; method: string }[], res: http.ServerResponse) => void;

/** A JSON-RPC endpoint on 127.0.0.1 whose behaviour each test scripts. */
async function endpoint(handler: Handler): Promise<{ url: string; requests: unknown[]; close(): Promise<void> }> {
  const requests: unknown[] = [];
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (d) => (raw += d));
    req.on('end', () => {
      const body = JSON.parse(raw);
      requests.push(body);
      handler(body, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

const reply = (res: http.ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};
const block = (n: number) => ({
  number: `0x${n.toString(16)}`,
  hash: `0x${n.toString(16).padStart(64, '0')}`,
  parentHash: `0x${'0'.repeat(64)}`,
  timestamp: '0x10',
});

const logger = createLogger({ level: 'silent' });
const rpcFor = (urls: string[], extra: Partial<Parameters<typeof createRpc>[0]> = {}) =>
  createRpc({ urls, chainId: 1, timeoutMs: 2000, retries: 3, backoffMs: 5, backoffMaxMs: 20, concurrency: 4, logger, ...extra });

describe('rpc', () => {
  const open: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((s) => s.close()));
  });

  it('falls back to the next URL while the first answers 5xx', async () => {
    const bad = await endpoint((_b, res) => reply(res, 503, { error: 'down' }));
    const good = await endpoint((b, res) => reply(res, 200, { jsonrpc: '2.0', id: (b as { id: number }).id, result: '0x1' }));
    open.push(bad, good);
    const rpc = rpcFor([bad.url, good.url]);
    expect(await rpc.chainId()).toBe(1);
    expect(bad.requests).toHaveLength(1);
    // The failed URL cools down: the next call goes straight to the healthy one.
    expect(await rpc.chainId()).toBe(1);
    expect(bad.requests).toHaveLength(1);
    expect(rpc.health().ok).toBe(true);
  });

  it('retries 429 and timeouts with backoff on a single URL', async () => {
    let n = 0;
    const ep = await endpoint((b, res) => {
      n++;
      if (n === 1) return reply(res, 429, { error: 'slow down' });
      if (n === 2) return; // never answers: a timeout
      reply(res, 200, { jsonrpc: '2.0', id: (b as { id: number }).id, result: '0x2a' });
    });
    open.push(ep);
    const rpc = rpcFor([ep.url], { timeoutMs: 200 });
    expect(await rpc.chainId()).toBe(42);
    expect(n).toBe(3);
  });

  it('reports unavailable when every URL fails, then recovers by itself', async () => {
    let down = true;
    const ep = await endpoint((b, res) => (down ? res.destroy() : reply(res, 200, { jsonrpc: '2.0', id: (b as { id: number }).id, result: '0x1' })));
    open.push(ep);
    const rpc = rpcFor([ep.url]);
    await expect(rpc.chainId()).rejects.toBeInstanceOf(RpcUnavailableError);
    expect(ep.requests).toHaveLength(4);
    expect(rpc.health()).toMatchObject({ ok: false, lastError: expect.stringContaining('eth_chainId') });
    down = false;
    expect(await rpc.chainId()).toBe(1);
    expect(rpc.health().ok).toBe(true);
  });

  it('does not retry a request the node rejects as malformed', async () => {
    const ep = await endpoint((b, res) =>
      reply(res, 200, { jsonrpc: '2.0', id: (b as { id: number }).id, error: { code: -32602, message: 'invalid argument' } }),
    );
    open.push(ep);
    const rpc = rpcFor([ep.url]);
    await expect(rpc.blockByNumber(1)).rejects.toBeInstanceOf(RpcRequestRejectedError);
    expect(ep.requests).toHaveLength(1);
  });

  it('turns a refused eth_getLogs span into RangeTooLargeError with the provider hint', async () => {
    const ep = await endpoint((b, res) =>
      reply(res, 200, {
        jsonrpc: '2.0',
        id: (b as { id: number }).id,
        error: { code: -32005, message: 'query returned more than 10000 results. Try with this block range [0x0, 0x1f3].' },
      }),
    );
    open.push(ep);
    const rpc = rpcFor([ep.url]);
    const err = await rpc.getLogs({ address: ['0x1111111111111111111111111111111111111111'], fromBlock: 0, toBlock: 5000 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RangeTooLargeError);
    expect((err as RangeTooLargeError).suggestedSpan).toBe(500);
    expect(ep.requests).toHaveLength(1);
  });

  it('fetches many headers in one JSON-RPC batch, matching answers by id', async () => {
    const ep = await endpoint((b, res) => {
      const calls = b as unknown as { id: number; params: [string] }[];
      // Answer in reverse order: a batch may come back in any order.
      reply(res, 200, calls.map((c) => ({ jsonrpc: '2.0', id: c.id, result: Number(c.params[0]) === 3 ? null : block(Number(c.params[0])) })).reverse());
    });
    open.push(ep);
    const rpc = rpcFor([ep.url], { batchSize: 50 });
    const blocks = await rpc.blocksByNumber([1, 2, 3, 4]);
    expect(blocks.map((x) => x?.number ?? null)).toEqual([1, 2, null, 4]);
    expect(ep.requests).toHaveLength(1);
  });

  it('hedges a read the provider sits on: a second request answers it and the first is not waited for', async () => {
    let n = 0;
    let releaseFirst = (): void => undefined;
    const slowThenFast = await endpoint((b, res) => {
      const id = (b as { id: number }).id;
      // The first request is held until the read has been answered; every twin is answered at once.
      if (n++ === 0) releaseFirst = () => reply(res, 200, { jsonrpc: '2.0', id, result: '0x1' });
      else reply(res, 200, { jsonrpc: '2.0', id, result: '0x1' });
    });
    open.push(slowThenFast);
    const metrics = new Metrics(false);
    const rpc = rpcFor([slowThenFast.url], { hedgeMinMs: 20, timeoutMs: 5000, metrics });
    // Answered while the first request is still held: only a twin can have answered it.
    await expect(rpc.chainId()).resolves.toBe(1);
    // Up to two twins, each 20 ms after the last: on a busy machine the first twin's answer can
    // come after the second twin was sent (which may still be on its way to the provider).
    const hedged = (await metrics.registry.getMetricsAsJSON()).find((m) => m.name === 'rfq_indexer_rpc_hedged_total');
    const twins = hedged?.values.map((v) => v.value) ?? [];
    expect(twins).toHaveLength(1);
    expect([1, 2]).toContain(twins[0]);
    expect(slowThenFast.requests.length).toBeGreaterThanOrEqual(2);
    expect(slowThenFast.requests.length).toBeLessThanOrEqual(1 + twins[0]);
    releaseFirst();
    rpc.close();
  });

  it('retries a header a backend behind the head does not have, on another URL, and counts it', async () => {
    const behind = await endpoint((b, res) => reply(res, 200, { jsonrpc: '2.0', id: (b as { id: number }).id, result: null }));
    const current = await endpoint((b, res) => reply(res, 200, { jsonrpc: '2.0', id: (b as { id: number }).id, result: block(7) }));
    open.push(behind, current);
    const metrics = new Metrics(false);
    const rpc = rpcFor([behind.url, current.url], { metrics });
    expect((await rpc.requireBlocks([7]))[0].number).toBe(7);
    expect(behind.requests).toHaveLength(1);
    const failures = (await metrics.registry.getMetricsAsJSON()).find((m) => m.name === 'rfq_indexer_provider_failures_total');
    expect(failures?.values).toEqual([expect.objectContaining({ labels: { chain_id: '1', class: 'lagging_backend' }, value: 1 })]);
    expect(rpc.providerState().urls.map((u) => u.state)).toEqual(['sitting_out', 'serving']);
  });
});
