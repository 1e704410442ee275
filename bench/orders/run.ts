import autocannon from 'autocannon';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { RfqClient } from '../../client/src';
import { spawnServer } from '../support/spawn-server';
import { indexPlacements, orderBody, ordersBenchDatabase, spawnOrdersApi } from './orders-fixture';
import { runBench, stopChild } from '../support/bench-cleanup';

/*
 * bench:orders. Two figures, each beside a bare Express route measured in the same run:
 * 1. order create throughput (POST /api/orders, 64 connections, a fresh nonce per request) as a
 *    ratio to the bare route (target: >= 0.40, as quote create);
 * 2. exclusive-fill create p99 under the race: rounds of 100 makers each asking at once for 2
 *    of 20 fresh orders (overlapping), against 100 concurrent posts to the bare route.
 */
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
const MAKERS = 100;
const ROUNDS = Number(process.env.BENCH_RACE_ROUNDS ?? 20);
const OWNER = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

async function load(base: string) {
  const r = await autocannon({
    url: `${base}/api/orders`,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    connections: CONNECTIONS,
    duration: DURATION_S,
    requests: [{ method: 'POST', path: '/api/orders', setupRequest: (req) => ({ ...req, body: orderBody(OWNER) }) }],
  });
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors };
}

const p99 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.99))];

async function timedPost(url: string, body: unknown, bearer?: string): Promise<{ ms: number; status: number }> {
  const t = performance.now();
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) },
    body: JSON.stringify(body),
  });
  await res.arrayBuffer();
  return { ms: performance.now() - t, status: res.status };
}

async function race(apiBase: string, bareBase: string, tokens: string[], databaseUrl: string) {
  const api = new RfqClient(apiBase);
  const fill: number[] = [];
  const bare: number[] = [];
  const statuses = new Map<number, number>();
  for (let round = 0; round < ROUNDS; round++) {
    const orders = await Promise.all(Array.from({ length: 20 }, () => api.createOrder(JSON.parse(orderBody(OWNER)))));
    await indexPlacements(databaseUrl, orders);
    const sets = tokens.map((_, i) => [orders[i % 20].id, orders[(i * 7 + 3) % 20].id].filter((v, j, a) => a.indexOf(v) === j));
    const answers = await Promise.all(
      sets.map((ids, i) => timedPost(`${apiBase}/api/exclusive-fill`, { order_ids: ids, reward_destination: OWNER }, tokens[i])),
    );
    for (const a of answers) {
      fill.push(a.ms);
      statuses.set(a.status, (statuses.get(a.status) ?? 0) + 1);
    }
    const base = await Promise.all(sets.map((ids) => timedPost(`${bareBase}/api/exclusive-fill`, { order_ids: ids, reward_destination: OWNER })));
    bare.push(...base.map((b) => b.ms));
  }
  return { fillP99: p99(fill), bareP99: p99(bare), statuses };
}

export async function ordersBench(): Promise<void> {
  const makers = Array.from({ length: MAKERS }, () => privateKeyToAccount(generatePrivateKey()));
  const db = await ordersBenchDatabase(
    'orders',
    makers.map((m) => m.address),
  );
  const api = spawnOrdersApi(db.url);
  const bareSrv = spawnServer('bench/orders/orders-bare-server.ts', {}, 'bare listening');
  try {
    const [apiPort, barePort] = await Promise.all([api.port, bareSrv.port]);
    const apiBase = `http://127.0.0.1:${apiPort}`;
    const bareBase = `http://127.0.0.1:${barePort}`;
    await load(bareBase); // warm-up
    const warm = await autocannon({
      url: `${apiBase}/api/orders`,
      connections: 8,
      duration: 2,
      requests: [{ method: 'POST', headers: { 'content-type': 'application/json' }, setupRequest: (req) => ({ ...req, body: orderBody(OWNER) }) }],
    });
    if (warm.non2xx > 0) throw new Error(`order route answered ${warm.non2xx} non-2xx during warm-up`);
    const baseline = await load(bareBase);
    const orders = await load(apiBase);
    const line = (name: string, r: typeof orders) =>
      `${name.padEnd(22)} ${r.rps.toFixed(0).padStart(7)} req/s   p50 ${String(r.p50).padStart(4)} ms   p99 ${String(r.p99).padStart(4)} ms   non-2xx ${r.non2xx}  errors ${r.errors}`;
    process.stdout.write(`\norder create, ${CONNECTIONS} connections, ${DURATION_S}s each\n`);
    process.stdout.write(`${line('bare express (base)', baseline)}\n${line('POST /api/orders', orders)}\n`);
    process.stdout.write(
      `ratio orders/base: ${(orders.rps / baseline.rps).toFixed(3)}   p99 ratio: ${(orders.p99 / Math.max(1, baseline.p99)).toFixed(2)}   targets: >= 0.40, p99 <= 2.5x\n`,
    );

    const client = new RfqClient(apiBase);
    const tokens: string[] = [];
    for (const m of makers) tokens.push((await client.signIn(m)).token);
    const r = await race(apiBase, bareBase, tokens, db.url);
    process.stdout.write(`\nexclusive-fill create, ${MAKERS} makers at once over 20 overlapping orders, ${ROUNDS} rounds\n`);
    process.stdout.write(`answers: ${[...r.statuses].map(([s, n]) => `${s} x${n}`).join(', ')}\n`);
    process.stdout.write(
      `p99 POST /api/exclusive-fill ${r.fillP99.toFixed(1)} ms   bare route p99 ${r.bareP99.toFixed(1)} ms   ratio ${(r.fillP99 / r.bareP99).toFixed(2)}\n`,
    );
  } finally {
    await Promise.all([stopChild(api.child), stopChild(bareSrv.child)]);
    await db.drop();
  }
}

if (require.main === module) {
  runBench(ordersBench);
}
