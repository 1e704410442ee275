import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import { devchainNetwork } from '../../dev/devchain';
import { deployReferenceContracts } from '../../dev/deploy';
import { startHardhatNode } from '../../dev/hardhat-node';
import { CpuBudget } from '../support/cpu-budget';
import { createDataSource } from '../../shared/entities';
import { NetworksService } from '../../shared/networks';
import { EVENT_SELECTORS } from '../../indexer/chain-events/decode-log';
import { benchDatabase } from '../support/bench-db';
import { startLatencyProxy } from './latency-proxy';
import { BENCH_REDIS_URL, HOSTED_PROVIDER_SETTINGS, indexerEnv } from './indexer-env';
import { sprayEvents } from './spray';
import { CHAOS_MIX, startChaosRpc } from '../../test/support/chaos-rpc';
import { freePort } from '../support/free-port';
import { benchPrefix, cleanUpBench, onBenchExit, runBench, stopChild, stopOnBenchExit } from '../support/bench-cleanup';

/**
 * Indexer backfill throughput beside a bare `eth_getLogs` sweep of the same blocks, same node,
 * same run; and the indexer's peak RSS. Everything on 127.0.0.1; bounded in events and time.
 *
 *   npm run bench:indexer                      # 50,000 events
 *   BENCH_EVENTS=200000 npm run bench:indexer  # a longer history, to see memory stay flat
 */
const ROOT = path.resolve(__dirname, '../..');
const EVENTS = Number(process.env.BENCH_EVENTS ?? 50_000);
const ROUNDS_PER_TX = Number(process.env.BENCH_ROUNDS_PER_TX ?? 120);
const TIME_LIMIT_MS = Number(process.env.BENCH_TIME_LIMIT_MS ?? 15 * 60_000);
const SWEEP_SPANS = [10, 25, 100];
/** Added round-trip latency between the indexer (and the sweep) and the node; 0 = straight to the node. */
const RPC_LATENCY_MS = Number(process.env.BENCH_RPC_LATENCY_MS ?? 0);
/** BENCH_RPC_CHAOS=1: the indexer reads through the tests' chaos proxy with every fault on; the sweep stays on the clean node. */
const RPC_CHAOS = process.env.BENCH_RPC_CHAOS === '1';

async function rpc<T>(url: string, method: string, params: unknown[]): Promise<T> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await res.json()) as { result?: T; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result as T;
}

/** The baseline: sequential `eth_getLogs` over [from, to] in fixed spans, same filter as the indexer, nothing stored. */
async function bareSweep(url: string, address: string[], from: number, to: number, span: number): Promise<{ logs: number; seconds: number }> {
  const started = process.hrtime.bigint();
  let logs = 0;
  for (let a = from; a <= to; a += span) {
    const b = Math.min(to, a + span - 1);
    const got = await rpc<unknown[]>(url, 'eth_getLogs', [
      { address, topics: [EVENT_SELECTORS], fromBlock: `0x${a.toString(16)}`, toBlock: `0x${b.toString(16)}` },
    ]);
    logs += got.length;
  }
  return { logs, seconds: Number(process.hrtime.bigint() - started) / 1e9 };
}

/** Resident and peak resident memory of a process, in MB (Linux /proc). */
function memoryOf(pid: number): { rss: number; hwm: number } | null {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
    return { rss: kb('VmRSS') / 1024, hwm: kb('VmHWM') / 1024 };
  } catch {
    return null;
  }
}

async function main(): Promise<void> {
  const deadline = setTimeout(() => {
    process.stderr.write(`bench:indexer exceeded ${TIME_LIMIT_MS} ms; aborting\n`);
    void cleanUpBench().finally(() => process.exit(2));
  }, TIME_LIMIT_MS);
  deadline.unref();
  const node = await startHardhatNode({ port: await freePort() });
  onBenchExit('Hardhat node', node.stop);
  const addresses = await deployReferenceContracts({ rpcUrl: node.rpcUrl });
  const t0 = Date.now();
  const sprayed = await sprayEvents(node.rpcUrl, addresses.pair, EVENTS, ROUNDS_PER_TX);
  const head = Number(await rpc<string>(node.rpcUrl, 'eth_blockNumber', []));
  console.log(`chain: ${sprayed.events} pair events in ${sprayed.txs} transactions, head ${head} (emitted in ${((Date.now() - t0) / 1000).toFixed(1)} s)`);

  const watched = [addresses.pairFactory, addresses.mothership, addresses.pair].map((a) => a.toLowerCase());
  let rpcUrl = node.rpcUrl;
  if (RPC_LATENCY_MS > 0) {
    const proxy = await startLatencyProxy(node.rpcUrl, RPC_LATENCY_MS);
    onBenchExit('latency proxy', proxy.close);
    rpcUrl = proxy.url;
    console.log(`RPC reached through a loopback proxy adding ${RPC_LATENCY_MS} ms per request`);
  }
  // Warm the node's caches once, so neither side pays for a cold first read.
  await bareSweep(rpcUrl, watched, 0, head, 1000);
  const sweeps = [];
  for (const span of SWEEP_SPANS) {
    const s = await bareSweep(rpcUrl, watched, 0, head, span);
    sweeps.push({ span, ...s, rate: s.logs / s.seconds });
    console.log(
      `bare eth_getLogs sweep, span ${String(span).padStart(3)}: ${s.logs} logs in ${s.seconds.toFixed(2)} s = ${Math.round(s.logs / s.seconds)} logs/s`,
    );
  }
  const best = sweeps.reduce((a, b) => (b.rate > a.rate ? b : a));

  let indexerUrl = rpcUrl;
  if (RPC_CHAOS) {
    const chaos = await startChaosRpc(rpcUrl);
    chaos.set(CHAOS_MIX);
    onBenchExit('chaos proxy', async () => {
      const a = chaos.stats().applied;
      console.log(
        `chaos faults served (seed ${chaos.seed}): ${Object.entries(a)
          .map(([k, n]) => `${k} ${n}`)
          .join(', ')}`,
      );
      await chaos.close();
    });
    indexerUrl = chaos.url;
    console.log('the indexer reads through the chaos proxy (every fault on); the sweeps above read the node directly');
  }
  const db = await benchDatabase('indexer');
  const ds = createDataSource({ url: db.url, poolSize: 2 });
  await ds.initialize();
  onBenchExit('database pool', () => ds.destroy());
  await new NetworksService(ds).upsertNetwork(devchainNetwork(indexerUrl, addresses));

  // BENCH_INDEXER_NODE_ARGS (e.g. "--cpu-prof") goes to the indexer's node, for profiling.
  const nodeArgs = (process.env.BENCH_INDEXER_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child: ChildProcess = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', 'bin/main.ts'], {
    cwd: ROOT,
    // Behind the chaos proxy: what an operator behind a hosted provider sets.
    env: indexerEnv({ databaseUrl: db.url, redisPrefix: benchPrefix('indexer', BENCH_REDIS_URL), logLevel: 'info' }, RPC_CHAOS ? HOSTED_PROVIDER_SETTINGS : {}),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  stopOnBenchExit(child, 'indexer');
  const started = new Promise<bigint>((resolve, reject) => {
    let buf = '';
    child.stdout!.on('data', (d: Buffer) => {
      buf += d.toString();
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        if (line.includes('"indexing a network from its start block"')) resolve(process.hrtime.bigint());
        if (process.env.BENCH_INDEXER_LOG_LEVEL === 'debug' && line.includes('"backfill range written"')) console.log(line);
      }
    });
    child.once('exit', (code) => reject(new Error(`indexer exited with ${code}`)));
  });
  const client = new Client({ connectionString: db.url });
  await client.connect();
  onBenchExit('database client', () => client.end());
  const begin = await started;
  const budget = CpuBudget.standard({ indexer: child.pid, 'hardhat node': node.pid });
  budget.begin();
  const samples: { at: number; cursor: number; rss: number }[] = [];
  let cursor = -1;
  while (cursor < head) {
    const r = await client.query<{ block_number: string }>(`SELECT block_number FROM indexer_cursors`);
    cursor = Number(r.rows[0]?.block_number ?? -1);
    const mem = memoryOf(child.pid!);
    if (mem) samples.push({ at: Number(process.hrtime.bigint() - begin) / 1e9, cursor, rss: mem.rss });
    if (cursor < head) await new Promise((res) => setTimeout(res, 10));
  }
  const seconds = Number(process.hrtime.bigint() - begin) / 1e9;
  const cpu = budget.end();
  const peak = memoryOf(child.pid!);
  // Transfers are stored in their own table, every other log in indexer_events.
  const { rows } = await client.query<{ n: string }>(`SELECT (SELECT count(*) FROM indexer_events) + (SELECT count(*) FROM indexer_transfers) AS n`);
  const stored = Number(rows[0].n);
  const rate = stored / seconds;
  console.log(`indexer backfill: ${stored} logs stored in ${seconds.toFixed(2)} s = ${Math.round(rate)} events/s`);
  console.log(`ratio to the best bare sweep (span ${best.span}): ${((rate / best.rate) * 100).toFixed(1)}% (target >= 80%)`);
  const quarter = (q: number) => samples.find((s) => s.cursor >= head * q) ?? samples[samples.length - 1];
  console.log(
    `indexer RSS at 25/50/75/100% of the backfill: ${[0.25, 0.5, 0.75, 1].map((q) => `${quarter(q).rss.toFixed(0)} MB`).join(' / ')}; peak (VmHWM) ${peak?.hwm.toFixed(0)} MB`,
  );
  // What bounds the backfill on shared cores: where its CPU went, and how many rows a log became.
  console.log(
    `CPU during the backfill (s): ${Object.entries(cpu)
      .map(([k, v]) => `${k} ${v.toFixed(2)}`)
      .join(', ')}; wall ${seconds.toFixed(2)}`,
  );
  const names = await client.query<{ t: string }>(`SELECT tablename AS t FROM pg_tables WHERE schemaname = 'public' AND tablename LIKE 'indexer%' ORDER BY 1`);
  const counts: [string, number][] = [];
  for (const { t } of names.rows) {
    const c = await client.query<{ n: string }>(`SELECT count(*)::text AS n FROM ${t}`);
    if (Number(c.rows[0].n) > 0) counts.push([t, Number(c.rows[0].n)]);
  }
  counts.sort((a, b) => b[1] - a[1]);
  const rowsWritten = counts.reduce((a, [, n]) => a + n, 0);
  console.log(`rows stored: ${rowsWritten} (${(rowsWritten / stored).toFixed(2)} per log): ${counts.map(([t, n]) => `${t} ${n}`).join(', ')}`);
  if (stored !== best.logs) throw new Error(`indexer stored ${stored} events, the sweep saw ${best.logs}`);
  await stopChild(child);
}

runBench(main);
