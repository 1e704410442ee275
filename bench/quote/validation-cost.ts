import autocannon from 'autocannon';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { parseQuoteRequest, parseQuoteRequestBySchema } from '../../shared/quotes';
import { butterflyBody, quoteBenchDatabase, spawnQuoteApi } from './quote-fixture';
import { runBench, stopChild } from '../support/bench-cleanup';

const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
const PARSE_ROUNDS = 7;
const PARSE_ITERATIONS = 10_000;

/**
 * What validating a quote body costs, as a share of what a whole create costs the API process.
 * Both sides are CPU time, not wall time: on a shared machine CPU time moves far less between
 * runs than latency, and CPU is what validation competes for. The parse runs as the service
 * calls it (clock read per call, the configured maximum window) on the benchmark's butterfly
 * body, a fresh copy per call as Express would hand it over; the create path's fast check
 * (shared/quotes/quote-request-check.ts) beside the zod schema alone.
 */
function parseMicros(parse: typeof parseQuoteRequest): number {
  const text = JSON.stringify(butterflyBody());
  const once = () => parse(JSON.parse(text), { now: Math.floor(Date.now() / 1000), maxExpiresIn: 300 });
  const jsonOnly = () => JSON.parse(text) as unknown;
  const perCall = (fn: () => unknown) => {
    const t0 = process.cpuUsage();
    for (let i = 0; i < PARSE_ITERATIONS; i++) fn();
    const d = process.cpuUsage(t0);
    return (d.user + d.system) / PARSE_ITERATIONS;
  };
  for (let i = 0; i < 2; i++) perCall(once); // warm-up: JIT and any schema caches
  const rounds: number[] = [];
  for (let r = 0; r < PARSE_ROUNDS; r++) rounds.push(perCall(once) - perCall(jsonOnly));
  rounds.sort((a, b) => a - b);
  return rounds[Math.floor(rounds.length / 2)];
}

/** utime + stime of a process, in microseconds (Linux /proc). */
function cpuMicrosOf(pid: number): number {
  const ticks = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim());
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  // After "pid (comm) ", utime and stime are the 12th and 13th fields.
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / ticks;
}

export async function validationCost(): Promise<void> {
  // The create path (the fast check, zod for what it does not accept) and the schema alone, for comparison.
  const parse = parseMicros(parseQuoteRequest);
  const bySchema = parseMicros(parseQuoteRequestBySchema);
  const db = await quoteBenchDatabase('validation');
  const api = spawnQuoteApi(db.url);
  try {
    const port = await api.port;
    const pid = api.child.pid as number;
    const url = `http://127.0.0.1:${port}/api/quote`;
    const run = (connections: number, duration: number) =>
      autocannon({ url, method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(butterflyBody()), connections, duration });
    const warm = await run(8, 2);
    if (warm.non2xx > 0) throw new Error(`quote route answered ${warm.non2xx} non-2xx during warm-up`);
    const before = cpuMicrosOf(pid);
    const r = await run(CONNECTIONS, DURATION_S);
    if (r.non2xx > 0 || r.errors > 0) throw new Error(`quote route answered ${r.non2xx} non-2xx and ${r.errors} errors under load`);
    const create = (cpuMicrosOf(pid) - before) / r.requests.total;
    process.stdout.write(`\nvalidation cost, butterfly body, ${CONNECTIONS} connections for ${DURATION_S}s (${r.requests.total} creates)\n`);
    process.stdout.write(`parse of the body (CPU, JSON.parse excluded) ${parse.toFixed(1).padStart(8)} us\n`);
    process.stdout.write(`the same by the zod schema alone         ${bySchema.toFixed(1).padStart(8)} us\n`);
    process.stdout.write(`API process CPU per create          ${create.toFixed(1).padStart(8)} us\n`);
    process.stdout.write(
      `share of create spent validating     ${((100 * parse) / create).toFixed(2).padStart(8)} %   (a hand fast path pays only above 5 %)\n`,
    );
  } finally {
    await stopChild(api.child);
    await db.drop();
  }
}

if (require.main === module) {
  runBench(validationCost);
}
