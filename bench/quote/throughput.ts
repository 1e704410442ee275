import autocannon from 'autocannon';
import { randomBytes } from 'node:crypto';
import { zeroAddress } from 'viem';
import { createDataSource } from '../../shared/entities';
import { RegistryService } from '../../shared/registry';
import { benchDatabase } from '../support/bench-db';
import { spawnServer } from '../support/spawn-server';
import { BENCH_WRITE_LIMITS } from './bench-limits';

const PAIR = '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512';
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);

async function load(url: string, body: string) {
  const r = await autocannon({
    url,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
    connections: CONNECTIONS,
    duration: DURATION_S,
  });
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors };
}

/** Quotes/s and p99 at 64 concurrent clients on one API process, beside a bare Express route. */
export async function quoteThroughput(): Promise<void> {
  const db = await benchDatabase('quote');
  const ds = createDataSource({ url: db.url, poolSize: 1 });
  await ds.initialize();
  await new RegistryService(ds).upsertNetwork({
    chain_id: 31337,
    name: 'Bench',
    rpc_urls: ['http://127.0.0.1:8545'],
    contracts: { mothership: PAIR, opshuns_core: PAIR },
    tokens: [],
  });
  await ds.destroy();

  const expiry = Math.floor(Date.now() / 1000) + 86400;
  const leg = (type: string, structure: number, strike: string, amount: string) => ({
    pair6909_contract: PAIR,
    option_type: type,
    structure,
    start_exercise_timestamp: 0,
    expiry_timestamp: expiry,
    strike_wad: strike,
    amount,
  });
  const body = JSON.stringify({
    chain_id: 31337,
    taker_address: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    polarity: 'b_is_buy',
    referrer: zeroAddress,
    expires_in: 300,
    intents: [
      leg('call', 0, '2500000000000000000000', '1000000000000000000'),
      leg('call', 1, '3000000000000000000000', '2000000000000000000'),
      leg('call', 0, '3500000000000000000000', '1000000000000000000'),
    ],
  });

  const api = spawnServer('bin/main.ts', {
    ROLES: 'api',
    PORT: '0',
    DATABASE_URL: db.url,
    REDIS_PREFIX: `bench:${Date.now()}:`,
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
    DEVCHAIN: 'off',
    NODE_ENV: 'production',
    DATABASE_POOL_SIZE: '20',
    JWT_SECRET: randomBytes(32).toString('hex'),
    ...BENCH_WRITE_LIMITS,
  }, 'api listening');
  const bare = spawnServer('bench/quote/bare-server.ts', {}, 'bare listening');
  try {
    const [apiPort, barePort] = await Promise.all([api.port, bare.port]);
    await load(`http://127.0.0.1:${barePort}/api/quote`, body); // warm-up both
    const warm = await autocannon({ url: `http://127.0.0.1:${apiPort}/api/quote`, method: 'POST', headers: { 'content-type': 'application/json' }, body, connections: 8, duration: 2 });
    if (warm.non2xx > 0) throw new Error(`quote route answered ${warm.non2xx} non-2xx during warm-up`);
    const baseline = await load(`http://127.0.0.1:${barePort}/api/quote`, body);
    const quotes = await load(`http://127.0.0.1:${apiPort}/api/quote`, body);
    const line = (name: string, r: typeof quotes) =>
      `${name.padEnd(22)} ${r.rps.toFixed(0).padStart(7)} req/s   p50 ${String(r.p50).padStart(4)} ms   p99 ${String(r.p99).padStart(4)} ms   non-2xx ${r.non2xx}  errors ${r.errors}`;
    process.stdout.write(`\nquote create, ${CONNECTIONS} connections, ${DURATION_S}s each, butterfly body\n`);
    process.stdout.write(`${line('bare express (base)', baseline)}\n${line('POST /api/quote', quotes)}\n`);
    process.stdout.write(`ratio quote/base: ${(quotes.rps / baseline.rps).toFixed(3)}   targets: >= 2000 quotes/s, p99 < 50 ms\n`);
  } finally {
    api.child.kill('SIGTERM');
    bare.child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 1500));
    await db.drop();
  }
}

if (require.main === module) {
  quoteThroughput().then(
    () => process.exit(0),
    (err: unknown) => {
      process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
      process.exit(1);
    },
  );
}
