import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import { devchainNetwork } from '../../dev/devchain';
import { deployReferenceContracts } from '../../dev/deploy';
import { startHardhatNode } from '../../dev/hardhat-node';
import { createDataSource } from '../../shared/entities';
import { NetworksService } from '../../shared/networks';
import { CHAOS_MIX, startChaosRpc, type ChaosRpc } from '../../test/support/chaos-rpc';
import { benchDatabase, percentile } from '../support/bench-db';
import { freePort } from '../support/free-port';
import { BENCH_REDIS_URL, HOSTED_PROVIDER_SETTINGS, indexerEnv } from './indexer-env';
import { deploySpray } from './spray';
import { benchPrefix, cleanUpBench, onBenchExit, runBench, stopOnBenchExit } from '../support/bench-cleanup';

/**
 * Block -> indexed lag behind a misbehaving provider, beside the same run behind a clean one.
 *
 * One Hardhat node; the indexer (its own process, `ROLES=indexer`, polling every 50 ms) reads it
 * through the chaos JSON-RPC proxy of the tests (test/support/chaos-rpc.ts): first calm (a clean
 * provider: the same proxy hop, no faults), then with the full mix on (429s, 503s, slow and cut
 * answers, refused ranges, a backend two blocks behind). In each run `BENCH_BLOCKS` blocks, each
 * holding pair events, are mined one at a time; a block's lag is from its receipt to the moment
 * the indexer's cursor reaches it (the database is polled every 5 ms). Printed: p50 / p99 of
 * both runs and their ratio (target: chaos p99 within 3x of clean); then a third run with three
 * URLs, the first chaotic and two clean: what one bad provider out of three costs. Everything on 127.0.0.1.
 *
 *   npm run bench:indexer:chaos                      # 150 blocks per run
 *   BENCH_BLOCKS=300 CHAOS_SEED=7 npm run bench:indexer:chaos
 */
const ROOT = path.resolve(__dirname, '../..');
const BLOCKS = Number(process.env.BENCH_BLOCKS ?? 150);
const TIME_LIMIT_MS = Number(process.env.BENCH_TIME_LIMIT_MS ?? 10 * 60_000);

interface LagRun {
  p50: number;
  p99: number;
  max: number;
  faults: Record<string, number>;
}

async function runIndexerBehind(
  mode: 'clean' | 'chaos' | 'one-of-three',
  chaos: ChaosRpc,
  /** Well-behaved proxies listed after the chaotic one in `one-of-three` mode. */
  good: ChaosRpc[],
  addresses: Awaited<ReturnType<typeof deployReferenceContracts>>,
  spray: Awaited<ReturnType<typeof deploySpray>>,
): Promise<LagRun> {
  const db = await benchDatabase(`lag_${mode}`);
  const ds = createDataSource({ url: db.url, poolSize: 1 });
  await ds.initialize();
  const urls = mode === 'one-of-three' ? [chaos.url, ...good.map((g) => g.url)] : [chaos.url];
  await new NetworksService(ds).upsertNetwork({ ...devchainNetwork(chaos.url, addresses), rpc_urls: urls, confirmations: 0 });
  await ds.destroy();
  chaos.calm();
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'bin/main.ts'], {
    cwd: ROOT,
    env: indexerEnv(
      { databaseUrl: db.url, redisPrefix: benchPrefix(`lag:${mode}`, BENCH_REDIS_URL), logLevel: 'warn' },
      { INDEXER_POLL_INTERVAL_MS: '50', INDEXER_NETWORKS_REFRESH_MS: '500', ...HOSTED_PROVIDER_SETTINGS },
    ),
    stdio: ['ignore', process.env.BENCH_INDEXER_LOG ? 'pipe' : 'ignore', 'inherit'],
  });
  // BENCH_INDEXER_LOG=file: the indexer's log lines of the chaos run, with BENCH_INDEXER_LOG_LEVEL (e.g. debug), to see where a slow block went.
  if (process.env.BENCH_INDEXER_LOG && mode === 'chaos') child.stdout?.pipe(fs.createWriteStream(process.env.BENCH_INDEXER_LOG));
  else child.stdout?.resume();
  const stop = stopOnBenchExit(child, `indexer (${mode})`);
  const client = new Client({ connectionString: db.url });
  await client.connect();
  onBenchExit(`database client (${mode})`, () => client.end());
  const cursor = async () => Number((await client.query<{ b: string }>(`SELECT max(block_number)::text AS b FROM indexer_cursors`)).rows[0]?.b ?? -1);
  const until = async (block: number) => {
    while ((await cursor()) < block) await new Promise((r) => setTimeout(r, 5));
  };
  // Caught up first, calm: the lag measured is that of following the head.
  await until(Number(await spray.client.getBlockNumber({ cacheTime: 0 })));
  // BENCH_CHAOS_OFF=slow,lagging: the mix without those behaviours, to see which one bounds the tail.
  const off = Object.fromEntries(
    (process.env.BENCH_CHAOS_OFF ?? '')
      .split(',')
      .filter(Boolean)
      .map((k) => [k, false]),
  );
  if (mode !== 'clean') chaos.set({ ...CHAOS_MIX, ...off });
  chaos.resetStats();
  const lags: number[] = [];
  for (let i = 0; i < BLOCKS; i++) {
    const block = await spray.once(addresses.pair);
    const mined = process.hrtime.bigint();
    await until(block);
    lags.push(Number(process.hrtime.bigint() - mined) / 1e6);
    if (process.env.BENCH_INDEXER_LOG && lags[lags.length - 1] > 500)
      console.log(`block ${block}: ${lags[lags.length - 1].toFixed(0)} ms at ${new Date().toISOString()}`);
  }
  const faults = { ...chaos.stats().applied };
  chaos.calm();
  await stop();
  return { p50: percentile(lags, 50), p99: percentile(lags, 99), max: Math.max(...lags), faults };
}

async function main(): Promise<void> {
  const deadline = setTimeout(() => {
    process.stderr.write(`bench:indexer:chaos exceeded ${TIME_LIMIT_MS} ms; aborting\n`);
    void cleanUpBench().finally(() => process.exit(2));
  }, TIME_LIMIT_MS);
  deadline.unref();
  const node = await startHardhatNode({ port: await freePort() });
  onBenchExit('Hardhat node', node.stop);
  const addresses = await deployReferenceContracts({ rpcUrl: node.rpcUrl });
  const spray = await deploySpray(node.rpcUrl);
  const chaos = await startChaosRpc(node.rpcUrl);
  onBenchExit('chaos proxy', chaos.close);
  console.log(`chaos seed ${chaos.seed}; ${BLOCKS} blocks per run, each holding 4 pair events`);
  const good = [await startChaosRpc(node.rpcUrl), await startChaosRpc(node.rpcUrl)];
  for (const g of good) onBenchExit('clean proxy', g.close);
  const clean = await runIndexerBehind('clean', chaos, good, addresses, spray);
  const ms = (v: number) => `${v.toFixed(1)} ms`;
  console.log(`clean provider: block -> indexed p50 ${ms(clean.p50)}, p99 ${ms(clean.p99)}, max ${ms(clean.max)}`);
  const chaotic = await runIndexerBehind('chaos', chaos, good, addresses, spray);
  console.log(
    `chaos mix:      block -> indexed p50 ${ms(chaotic.p50)}, p99 ${ms(chaotic.p99)}, max ${ms(chaotic.max)}; faults served: ${Object.entries(chaotic.faults)
      .filter(([, n]) => n > 0)
      .map(([k, n]) => `${k} ${n}`)
      .join(', ')}`,
  );
  console.log(`ratio chaos / clean: p50 ${(chaotic.p50 / clean.p50).toFixed(2)}x, p99 ${(chaotic.p99 / clean.p99).toFixed(2)}x (target: p99 within 3x)`);
  // Several URLs: the first misbehaves as above, two others are clean. What one bad URL costs.
  const mixed = await runIndexerBehind('one-of-three', chaos, good, addresses, spray);
  console.log(`one bad URL of three: block -> indexed p50 ${ms(mixed.p50)}, p99 ${ms(mixed.p99)}, max ${ms(mixed.max)}`);
  console.log(`ratio one-of-three / clean: p50 ${(mixed.p50 / clean.p50).toFixed(2)}x, p99 ${(mixed.p99 / clean.p99).toFixed(2)}x`);
}

runBench(main);
