import autocannon from 'autocannon';
import { CpuBudget } from '../support/cpu-budget';
import { spawnServer } from '../support/spawn-server';
import { startOtlpReceiver } from '../../test/support/otlp-receiver';
import { butterflyBody, quoteBenchDatabase, spawnQuoteApi } from './quote-fixture';
import { quoteStageTable } from './quote-trace';
import { runBench, stopChild } from '../support/bench-cleanup';

const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
// BENCH_TRACE=1: the API exports its spans to a collector in this process, and the run ends with
// where a create's time goes (bench/quote/quote-trace.ts). Tracing costs CPU: read the throughput
// of an untraced run.
const TRACE = process.env.BENCH_TRACE === '1';
const TRACE_FLUSH_MS = 8000;

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
  const collector = TRACE ? await startOtlpReceiver() : null;
  const api = spawnQuoteApi(db.url, collector ? { TRACING_OTLP_URL: collector.url } : {});
  const bare = spawnServer('bench/quote/quote-bare-server.ts', {}, 'bare listening');
  try {
    const [apiPort, barePort] = await Promise.all([api.port, bare.port]);
    await load(`http://127.0.0.1:${barePort}/api/quote`, body); // warm-up both
    const warm = await autocannon({
      url: `http://127.0.0.1:${apiPort}/api/quote`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
      connections: 8,
      duration: 2,
    });
    if (warm.non2xx > 0) throw new Error(`quote route answered ${warm.non2xx} non-2xx during warm-up`);
    const budget = CpuBudget.standard({ 'bare server': bare.child.pid, api: api.child.pid });
    collector?.spans.splice(0);
    budget.begin();
    const baseline = await load(`http://127.0.0.1:${barePort}/api/quote`, body);
    const baseCpu = budget.end();
    budget.begin();
    const quotes = await load(`http://127.0.0.1:${apiPort}/api/quote`, body);
    const quoteCpu = budget.end();
    const line = (name: string, r: typeof quotes) =>
      `${name.padEnd(22)} ${r.rps.toFixed(0).padStart(7)} req/s   p50 ${String(r.p50).padStart(4)} ms   p99 ${String(r.p99).padStart(4)} ms   non-2xx ${r.non2xx}  errors ${r.errors}`;
    process.stdout.write(`\nquote create, ${CONNECTIONS} connections, ${DURATION_S}s each, butterfly body\n`);
    process.stdout.write(`${line('bare express (base)', baseline)}\n${line('POST /api/quote', quotes)}\n`);
    // CPU per answered request by process: on two shared cores the sum is what bounds the rate.
    const perRequest = (cpu: Record<string, number>, r: typeof quotes) =>
      Object.entries(cpu)
        .filter(([, s]) => s > 0.005)
        .map(([name, s]) => `${name} ${((s * 1e6) / (r.rps * DURATION_S)).toFixed(0)} µs`)
        .join(', ');
    const total = (cpu: Record<string, number>, r: typeof quotes) => ((Object.values(cpu).reduce((a, b) => a + b, 0) * 1e6) / (r.rps * DURATION_S)).toFixed(0);
    process.stdout.write(`CPU per request, bare: ${perRequest(baseCpu, baseline)}; total ${total(baseCpu, baseline)} µs\n`);
    process.stdout.write(`CPU per request, quote: ${perRequest(quoteCpu, quotes)}; total ${total(quoteCpu, quotes)} µs\n`);
    const ratio = quotes.rps / baseline.rps;
    const p99Ratio = quotes.p99 / baseline.p99;
    process.stdout.write(
      `ratio quote/base: ${ratio.toFixed(3)} (target >= 0.40: ${ratio >= 0.4 ? 'met' : 'MISSED'})   p99 quote/base: ${p99Ratio.toFixed(2)} (target <= 2.5: ${p99Ratio <= 2.5 ? 'met' : 'MISSED'})\n`,
    );
    if (collector) {
      await new Promise((r) => setTimeout(r, TRACE_FLUSH_MS));
      process.stdout.write(`\nwhere a create's time goes under this load, from the API's own spans (BENCH_TRACE=1):\n${quoteStageTable(collector.spans)}`);
    }
  } finally {
    await collector?.close();
    await Promise.all([stopChild(api.child), stopChild(bare.child)]);
    await db.drop();
  }
}

if (require.main === module) {
  runBench(quoteThroughput);
}
