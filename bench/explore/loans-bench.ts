import { randomBytes } from 'node:crypto';
import autocannon from 'autocannon';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { RfqClient } from '../../client/src';
import { createDataSource } from '../../shared/entities';
import { OrganizationService } from '../../shared/identity';
import { NetworksService } from '../../shared/networks';
import { benchDatabase } from '../support/bench-db';
import { CpuBudget } from '../support/cpu-budget';
import { spawnServer } from '../support/spawn-server';
import { BENCH_BORROWER, BENCH_TOKENS, seedLoans } from './loans-seed';
import { benchPrefix, runBench, stopChild } from '../support/bench-cleanup';

const LOANS = Number(process.env.BENCH_LOANS ?? 100_000);
const EVENTS = Number(process.env.BENCH_LOAN_EVENTS ?? 1_000_000);
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const ONE_LOAN = `31337-${Math.min(4242, LOANS)}`;

/** The loan routes as an analyst calls them: first pages, and the filtered and one-loan reads. */
const ROUTES: [string, string][] = [
  ['summary', '/api/explore/loans/summary?chain_id=31337'],
  ['at-risk', '/api/explore/loans/at-risk?chain_id=31337'],
  ['recent', '/api/explore/loans/recent?chain_id=31337'],
  ['activity', '/api/explore/loans/activity?chain_id=31337'],
  ['activity?borrower', `/api/explore/loans/activity?chain_id=31337&borrower=${BENCH_BORROWER}`],
  ['events', '/api/explore/loans/events?chain_id=31337'],
  ['margin/loans?borrower', `/api/margin/loans?chain_id=31337&borrower=${BENCH_BORROWER}`],
  ['margin/loans/:id', `/api/margin/loans/${ONE_LOAN}`],
  ['margin/loans/:id/collateral', `/api/margin/loans/${ONE_LOAN}/collateral`],
];

async function load(url: string, headers: Record<string, string> = {}) {
  const r = await autocannon({ url, headers, connections: CONNECTIONS, duration: DURATION_S });
  return { rps: r.requests.average, requests: r.requests.total, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors };
}

/**
 * p99 of each loan route at 16 clients on one API process, over 100,000 loans and 1,000,000
 * loan events seeded by bulk SQL, as a ratio to a bare Express route running one indexed
 * one-row SELECT on the same database, measured in the same run. Three runs.
 */
async function main(): Promise<void> {
  const db = await benchDatabase('loans');
  const ds = createDataSource({ url: db.url, poolSize: 2 });
  await ds.initialize();
  const started = Date.now();
  await new NetworksService(ds).upsertNetwork({
    chain_id: 31337,
    name: 'Bench',
    rpc_urls: ['http://127.0.0.1:8545'],
    contracts: {},
    tokens: BENCH_TOKENS.map((t) => ({ address: t.address, symbol: t.symbol, name: t.symbol, decimals: t.decimals })),
  });
  await seedLoans(ds, LOANS, EVENTS);
  process.stdout.write(`seeded ${LOANS} loans and ${EVENTS} loan events in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);

  const api = spawnServer(
    'bin/main.ts',
    {
      ROLES: 'api',
      PORT: '0',
      DATABASE_URL: db.url,
      REDIS_PREFIX: benchPrefix('loans'),
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
      DEVCHAIN: 'off',
      NODE_ENV: 'production',
      DATABASE_POOL_SIZE: '20',
      JWT_SECRET: randomBytes(32).toString('hex'),
      EXPLORE_RATE_LIMIT: '1000000',
      EXPLORE_RATE_LIMIT_PER_IP: '1000000',
      // BENCH_GATE_MEMORY_MS=0: the gate's key and network checks read Postgres each time (the A/B of issue #41).
      ...(process.env.BENCH_GATE_MEMORY_MS === undefined ? {} : { GATE_MEMORY_MS: process.env.BENCH_GATE_MEMORY_MS }),
    },
    'api listening',
  );
  const bare = spawnServer('bench/explore/loans-bare-server.ts', { DATABASE_URL: db.url }, 'bare listening');
  try {
    const [apiPort, barePort] = await Promise.all([api.port, bare.port]);
    // The integrator's path of the gate: a delegate minted with a taker API key (no Origin, no challenge).
    const client = new RfqClient(`http://127.0.0.1:${apiPort}`);
    const admin = privateKeyToAccount(generatePrivateKey());
    await new OrganizationService(ds).create({ kind: 'taker', name: 'Bench integrator', owner: admin.address });
    const adminClient = client.as((await client.signIn(admin)).token);
    const { secret } = await adminClient.call<{ secret: string }>('POST', '/api/taker/keys', { name: 'bench' });
    const { token } = await client
      .as(secret)
      .call<{ token: string }>('POST', '/api/taker/delegate', { address: privateKeyToAccount(generatePrivateKey()).address, expires_in: 3600 });
    const auth = { authorization: `Bearer ${token}` };

    for (const [, path] of ROUTES) {
      const warm = await autocannon({ url: `http://127.0.0.1:${apiPort}${path}`, headers: auth, connections: 4, duration: 1 });
      if (warm.non2xx > 0) throw new Error(`${path} answered ${warm.non2xx} non-2xx during warm-up`);
    }
    await load(`http://127.0.0.1:${barePort}/loan`);
    process.stdout.write(`\nloan routes, ${CONNECTIONS} connections, ${DURATION_S}s each, ${RUNS} runs; base = bare Express + one indexed one-row SELECT\n`);
    // Where each route's time goes on two shared cores: CPU per request in the server and in Postgres.
    const budget = CpuBudget.standard({ api: api.child.pid, bare: bare.child.pid });
    const perRequest = (server: 'api' | 'bare', cpu: Record<string, number>, requests: number) =>
      `CPU/request: ${server} ${((cpu[server] * 1e6) / Math.max(1, requests)).toFixed(0)} µs, postgres ${((cpu.postgres * 1e6) / Math.max(1, requests)).toFixed(0)} µs`;
    for (let run = 1; run <= RUNS; run++) {
      budget.begin();
      const base = await load(`http://127.0.0.1:${barePort}/loan`);
      const baseCpu = budget.end();
      process.stdout.write(
        `run ${run}: base p50 ${base.p50} ms  p99 ${base.p99} ms  ${base.rps.toFixed(0)} req/s  ${perRequest('bare', baseCpu, base.requests)}\n`,
      );
      for (const [name, path] of ROUTES) {
        budget.begin();
        const r = await load(`http://127.0.0.1:${apiPort}${path}`, auth);
        const cpu = budget.end();
        process.stdout.write(
          `  ${name.padEnd(30)} p50 ${String(r.p50).padStart(4)} ms  p99 ${String(r.p99).padStart(4)} ms  ${r.rps.toFixed(0).padStart(6)} req/s  ` +
            `p99 ratio ${(r.p99 / Math.max(1, base.p99)).toFixed(2)}  non-2xx ${r.non2xx}  errors ${r.errors}  ${perRequest('api', cpu, r.requests)}\n`,
        );
      }
    }
  } finally {
    await Promise.all([stopChild(api.child), stopChild(bare.child)]);
    await ds.destroy();
    await db.drop();
  }
}

runBench(main);
