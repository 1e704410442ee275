import autocannon from 'autocannon';
import { spawnServer } from '../support/spawn-server';
import { butterflyBody, quoteBenchDatabase, spawnQuoteApi } from './quote-fixture';

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
  const db = await quoteBenchDatabase('quote');
  const body = JSON.stringify(butterflyBody());
  const api = spawnQuoteApi(db.url);
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
