import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Pool } from 'pg';
import { getAddress } from 'viem';
import { createDataSource } from '../../shared/entities';
import { NetworksService } from '../../shared/networks';
import { benchDatabase, percentile } from '../support/bench-db';
import { CpuBudget } from '../support/cpu-budget';
import { spawnServer } from '../support/spawn-server';
import { BENCH_WRITE_LIMITS } from '../support/bench-limits';
import { delegateToken } from './delegate';
import { SEED, seedClob } from './seed';
import { benchPrefix, runBench, stopChild } from '../support/bench-cleanup';

/**
 * Explore read latency at scale: one CLOB with 100,000 orders and 1,000,000 fills (each with its
 * mint transfer), each Explore route's p50 / p99 at 16 concurrent clients, beside a bare indexed
 * one-row SELECT served over HTTP by the same machine in the same run (the ratio is the figure:
 * these machines are shared). Routes go through the real gate with a keyed taker delegate.
 *
 *   npm run bench:explore                         # 3 runs, 800 requests per route per run
 *   BENCH_RUNS=1 BENCH_REQUESTS=800 npm run bench:explore
 *   BENCH_ORDERS=20000 BENCH_FILLS=200000 ...   # a smaller seed while iterating
 *   BENCH_GATE_MEMORY_MS=0 ...                   # the gate's memory off (every check asks Postgres)
 */
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 800);
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 16);
const PAIR = getAddress('0x00000000000000000000000000000000000c10b0');

/** `concurrency` loops sending `total` requests between them; latency of each in ms. */
async function load(url: string, init: RequestInit, total: number, concurrency: number): Promise<number[]> {
  const lat: number[] = [];
  let left = total;
  const worker = async () => {
    while (left-- > 0) {
      const t0 = performance.now();
      const res = await fetch(url, init);
      await res.arrayBuffer();
      if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${url}: ${res.status}`);
      lat.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return lat;
}

async function main(): Promise<void> {
  const db = await benchDatabase('explore');
  const children: ChildProcess[] = [];
  try {
    const ds = createDataSource({ url: db.url, poolSize: 2 });
    await ds.initialize();
    await new NetworksService(ds).upsertNetwork({ chain_id: 31337, name: 'Bench', rpc_urls: ['http://127.0.0.1:1'], contracts: {}, tokens: [] });
    const t0 = performance.now();
    const { series } = await seedClob(ds, PAIR, {
      orders: Number(process.env.BENCH_ORDERS ?? SEED.orders),
      fills: Number(process.env.BENCH_FILLS ?? SEED.fills),
    });
    const counts = (await ds.query(`SELECT kind, count(*)::int AS n FROM indexer_clob_activity GROUP BY kind ORDER BY kind`)) as { kind: string; n: number }[];
    console.log(
      `seeded in ${((performance.now() - t0) / 1000).toFixed(1)} s: ${process.env.BENCH_ORDERS ?? SEED.orders} orders, ${counts.map((c) => `${c.n} ${c.kind}`).join(', ')}`,
    );
    const [{ owner }] = (await ds.query(`SELECT owner FROM indexer_orders WHERE chain_id = 31337 AND pair = $1 AND order_id = 12345`, [PAIR])) as {
      owner: string;
    }[];
    await ds.destroy();

    const env = { DATABASE_URL: db.url, DATABASE_POOL_SIZE: '20' };
    const api = spawnServer(
      'bin/main.ts',
      {
        ...env,
        ROLES: 'api',
        PORT: '0',
        REDIS_PREFIX: benchPrefix('explore'),
        LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
        DEVCHAIN: 'off',
        NODE_ENV: 'production',
        JWT_SECRET: randomBytes(32).toString('hex'),
        EXPLORE_RATE_LIMIT: '1000000',
        EXPLORE_RATE_LIMIT_PER_IP: '1000000',
        EXPLORE_RATE_WINDOW_SECONDS: '1',
        // The mint route is timed 800 times a run from one address and one taker key: past the live-stream caps.
        EXPLORE_STREAMS_PER_IP: '1000000',
        EXPLORE_STREAMS_PER_WALLET: '1000000',
        EXPLORE_STREAMS_PER_TAKER_KEY: '1000000',
        EXPLORE_STREAMS_PER_SUBJECT: '10000000',
        LOGIN_RATE_LIMIT: '1000',
        ...BENCH_WRITE_LIMITS,
        // BENCH_GATE_MEMORY_MS=0: the gate's key check reads Postgres each time (the A/B of issue #41).
        ...(process.env.BENCH_GATE_MEMORY_MS === undefined ? {} : { GATE_MEMORY_MS: process.env.BENCH_GATE_MEMORY_MS }),
      },
      'api listening',
    );
    const bare = spawnServer('bench/explore/bare-select-server.ts', { ...env, BENCH_PAIR: PAIR }, 'bare listening');
    children.push(api.child, bare.child);
    const base = `http://127.0.0.1:${await api.port}`;
    const bareUrl = `http://127.0.0.1:${await bare.port}/bare`;
    const token = await delegateToken(base, db.url);
    const auth = { authorization: `Bearer ${token}` };

    // A deep page: the cursor of the 500th fill page of 50 (25,000 fills back).
    let deep: string | null = null;
    for (let i = 0, next: string | null = null; i < 50; i++) {
      const page = (await (await fetch(`${base}/api/clob/${PAIR}/fills?limit=500${next ? `&cursor=${next}` : ''}`, { headers: auth })).json()) as {
        next_cursor: string;
      };
      next = page.next_cursor;
      deep = next;
    }
    const routes: [string, string, string][] = [
      ['overview', 'GET', `/api/explore/clobs/${PAIR}`],
      ['book (one CLOB, 20 series)', 'GET', `/api/clob/${PAIR}/book`],
      ['book with orders', 'GET', `/api/clob/${PAIR}/book?option_id=${series[3]}&include_orders=true`],
      ['chain book', 'GET', '/api/clob/book?chain_id=31337'],
      ['activity, newest 50', 'GET', `/api/clob/${PAIR}/activity`],
      ['activity of one wallet', 'GET', `/api/clob/${PAIR}/activity?address=${owner}`],
      ['activity of one series, filled', 'GET', `/api/clob/${PAIR}/activity?option_id=${series[7]}&type=filled`],
      ['fills, newest 50', 'GET', `/api/clob/${PAIR}/fills`],
      ['fills, 25,000 back (cursor)', 'GET', `/api/clob/${PAIR}/fills?cursor=${deep}`],
      ['summary, 30 days', 'GET', `/api/clob/${PAIR}/summary`],
      ['summary, 60 days', 'GET', `/api/clob/${PAIR}/summary?from=${new Date(Date.now() - 59 * 86_400_000).toISOString().slice(0, 10)}`],
      ['stream token mint', 'POST', `/api/explore/clobs/${PAIR}/stream`],
    ];
    // The SELECT alone, from this process, for reference: what the database costs without HTTP.
    const pool = new Pool({ connectionString: db.url, max: CLIENTS });
    // Where each route's time goes on two shared cores: CPU per request in the API and in Postgres.
    const budget = CpuBudget.standard({ api: api.child.pid, bare: bare.child.pid });
    const perRequest = (server: 'api' | 'bare', cpu: Record<string, number>) =>
      `${server} ${((cpu[server] * 1e6) / REQUESTS).toFixed(0)} µs, postgres ${((cpu.postgres * 1e6) / REQUESTS).toFixed(0)} µs`;
    for (let run = 1; run <= RUNS; run++) {
      // Warm every route once, then measure the baseline and each route in turn.
      for (const [, method, p] of routes) await load(`${base}${p}`, { method, headers: auth }, CLIENTS, CLIENTS);
      await load(bareUrl, {}, 200, CLIENTS);
      budget.begin();
      const baseLat = await load(bareUrl, {}, REQUESTS, CLIENTS);
      const baseCpu = budget.end();
      const sqlLat: number[] = [];
      await Promise.all(
        Array.from({ length: CLIENTS }, async (_, c) => {
          for (let i = c; i < REQUESTS; i += CLIENTS) {
            const t = performance.now();
            await pool.query(`SELECT order_id, owner, price, remaining FROM indexer_orders WHERE chain_id = 31337 AND pair = $1 AND order_id = $2`, [
              PAIR,
              1 + i,
            ]);
            sqlLat.push(performance.now() - t);
          }
        }),
      );
      const b99 = percentile(baseLat, 99);
      console.log(`\nrun ${run}/${RUNS}: ${CLIENTS} clients, ${REQUESTS} requests per route`);
      console.log(
        `  baseline  bare indexed one-row SELECT over HTTP: p50 ${percentile(baseLat, 50).toFixed(2)} ms, p99 ${b99.toFixed(2)} ms (the SELECT alone: p99 ${percentile(sqlLat, 99).toFixed(2)} ms)   CPU/request: ${perRequest('bare', baseCpu)}`,
      );
      for (const [name, method, p] of routes) {
        budget.begin();
        const lat = await load(`${base}${p}`, { method, headers: auth }, REQUESTS, CLIENTS);
        const cpu = budget.end();
        const p99 = percentile(lat, 99);
        console.log(
          `  ${name.padEnd(34)} p50 ${percentile(lat, 50).toFixed(2).padStart(7)} ms  p99 ${p99.toFixed(2).padStart(7)} ms  = ${(p99 / b99).toFixed(2).padStart(6)} x baseline p99   CPU/request: ${perRequest('api', cpu)}`,
        );
      }
    }
    await pool.end();
  } finally {
    await Promise.all(children.map((c) => stopChild(c)));
    await db.drop();
  }
}

runBench(main);
