import { percentile } from '../support/bench-db';
import { PhoenixConnection } from '../support/phoenix-connection';
import { spawnServer } from '../support/spawn-server';
import { benchServiceEnv } from '../support/service-env';
import { chainDatabase, mintClobStream, orderPlacer, startBenchChain } from './chain-fixture';
import { delegateToken } from './delegate';
import type { DeployedAddresses } from '../../dev/deploy';
import { runBench, stopChild } from '../support/bench-cleanup';

/**
 * Block-to-socket latency of the explore CLOB stream: a transaction mined on the local Hardhat
 * node (automine: the block is mined as the transaction is sent) to its `explore_clob_event`
 * received by a client joined to `explore_clob_stream:<token>`, through the whole service in
 * one process (api, socket, workers, indexer). Measured twice in the same run: with the
 * network's ws:// URL (the indexer wakes on newHeads) and with HTTP polling only at the default
 * INDEXER_POLL_INTERVAL_MS (1,000 ms), the baseline.
 *
 *   npm run bench:explore-latency            # 100 blocks per mode
 */
const BLOCKS = Number(process.env.BENCH_BLOCKS ?? 100);

async function measure(mode: 'ws' | 'poll', rpcUrl: string, addresses: DeployedAddresses): Promise<number[]> {
  const db = await chainDatabase(`latency_${mode}`, rpcUrl, addresses, { newHeads: mode === 'ws' });
  const service = spawnServer(
    'bin/main.ts',
    benchServiceEnv({ roles: 'api,socket,workers,indexer', databaseUrl: db.url, tag: `latency:${mode}` }),
    'api listening',
  );
  try {
    const base = `http://127.0.0.1:${await service.port}`;
    const topic = await mintClobStream(base, await delegateToken(base, db.url), addresses.pair);
    return await run(base, topic, rpcUrl, addresses.pair);
  } finally {
    await stopChild(service.child);
    await db.drop();
  }
}

async function run(base: string, topic: string, rpcUrl: string, pair: `0x${string}`): Promise<number[]> {
  const waiting = new Map<string, (t: number) => void>();
  let snapshot!: () => void;
  const snapped = new Promise<void>((r) => (snapshot = r));
  const conn = await PhoenixConnection.open(`${base.replace(/^http/, 'ws')}/socket`, (_topic, event, payload, at) => {
    if (event === 'explore_clob_snapshot') snapshot();
    const hash = (payload as { tx_hash?: string }).tx_hash;
    if (event === 'explore_clob_event' && hash) waiting.get(hash.toLowerCase())?.(at);
  });
  try {
    await conn.join(topic);
    await snapped;
    const place = orderPlacer(rpcUrl, pair);
    const lat: number[] = [];
    for (let i = 0; i < BLOCKS; i++) {
      const { hash, sentAt } = await place();
      const received = new Promise<number>((r) => waiting.set(hash.toLowerCase(), r));
      lat.push((await received) - sentAt);
      // Spread the blocks so each one is measured on its own, not queued behind the previous.
      await new Promise((r) => setTimeout(r, 50 + Math.random() * 100));
    }
    return lat;
  } finally {
    conn.close();
  }
}

async function main(): Promise<void> {
  const { node, addresses } = await startBenchChain();
  try {
    const report = (name: string, lat: number[]) => `${name}: p50 ${percentile(lat, 50).toFixed(1)} ms, p99 ${percentile(lat, 99).toFixed(1)} ms`;
    const ws = await measure('ws', node.rpcUrl, addresses);
    const poll = await measure('poll', node.rpcUrl, addresses);
    console.log(`block -> explore_clob_event on a joined socket, ${BLOCKS} blocks per mode`);
    console.log(`  ${report('newHeads over ws   ', ws)}`);
    console.log(`  ${report('polling (1,000 ms)  ', poll)}  (baseline)`);
    console.log(
      `  ratio ws / poll: p50 ${(percentile(ws, 50) / percentile(poll, 50)).toFixed(3)}, p99 ${(percentile(ws, 99) / percentile(poll, 99)).toFixed(3)}`,
    );
  } finally {
    await node.stop();
  }
}

runBench(main);
