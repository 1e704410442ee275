import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import { Socket } from 'phoenix';
import WebSocket from 'ws';
import { devchainNetwork } from '../../dev/devchain';
import { deployReferenceContracts } from '../../dev/deploy';
import { startHardhatNode } from '../../dev/hardhat-node';
import { optionPairAbi } from '../../shared/chain/abis';
import { hardhatAccounts, localWalletClient } from '../../shared/chain/clients';
import { createDataSource } from '../../shared/entities';
import { encodeOptionId } from '../../shared/protocol';
import { NetworksService } from '../../shared/networks';
import { benchDatabase, percentile } from '../support/bench-db';
import { spawnServer } from '../support/spawn-server';
import { BENCH_WRITE_LIMITS } from '../quote/bench-limits';
import { delegateToken } from './delegate';

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

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

async function measure(mode: 'ws' | 'poll', rpcUrl: string, addresses: Awaited<ReturnType<typeof deployReferenceContracts>>): Promise<number[]> {
  const db = await benchDatabase(`latency_${mode}`);
  const ds = createDataSource({ url: db.url, poolSize: 1 });
  await ds.initialize();
  const network = devchainNetwork(rpcUrl, addresses);
  await new NetworksService(ds).upsertNetwork({ ...network, confirmations: 0, rpc_urls: mode === 'ws' ? [rpcUrl, rpcUrl.replace(/^http/, 'ws')] : [rpcUrl] });
  await ds.destroy();
  const service = spawnServer(
    'bin/main.ts',
    {
      ROLES: 'api,socket,workers,indexer',
      PORT: '0',
      DATABASE_URL: db.url,
      REDIS_PREFIX: `bench:latency:${mode}:${Date.now()}:`,
      LOG_LEVEL: 'info',
      DEVCHAIN: 'off',
      NODE_ENV: 'production',
      JWT_SECRET: randomBytes(32).toString('hex'),
      // production refuses the public development signing key; these benches never sign
      SERVICE_SIGNER_KEY: `0x${randomBytes(32).toString('hex')}`,
      ...BENCH_WRITE_LIMITS,
    },
    'api listening',
  );
  try {
    const base = `http://127.0.0.1:${await service.port}`;
    const token = await delegateToken(base, db.url);
    const pair = addresses.pair;
    // The indexer must have found the pair before a stream can be opened on it.
    for (let i = 0; ; i++) {
      const res = await fetch(`${base}/api/explore/clobs/${pair}/stream`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
      if (res.status === 201) {
        const { topic } = (await res.json()) as { topic: string };
        return await run(base, topic, rpcUrl, pair);
      }
      if (i > 300) throw new Error(`stream mint: ${res.status}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  } finally {
    service.child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 1000));
    await db.drop();
  }
}

async function run(base: string, topic: string, rpcUrl: string, pair: `0x${string}`): Promise<number[]> {
  const socket = new Socket(`${base.replace(/^http/, 'ws')}/socket`, { transport: WebSocket as never, timeout: 10_000 } as never);
  socket.connect();
  const waiting = new Map<string, (t: number) => void>();
  const channel = socket.channel(topic, {});
  let snapshot!: () => void;
  const snapped = new Promise<void>((r) => (snapshot = r));
  channel.on('explore_clob_snapshot', () => snapshot());
  channel.on('explore_clob_event', (p: { tx_hash?: string }) => {
    const t = performance.now();
    if (p.tx_hash) waiting.get(p.tx_hash.toLowerCase())?.(t);
  });
  await new Promise<void>((resolve, reject) =>
    channel
      .join()
      .receive('ok', () => resolve())
      .receive('error', (e: unknown) => reject(new Error(JSON.stringify(e)))),
  );
  await snapped;
  const wallet = localWalletClient(rpcUrl, hardhatAccounts(3)[2]);
  const id = encodeOptionId({ option_type: 0, strike_wad: 3000n, expiry_timestamp: Math.floor(Date.now() / 1000) + 86_400 * 7, start_exercise_timestamp: 0 });
  const lat: number[] = [];
  for (let i = 0; i < BLOCKS; i++) {
    const t0 = performance.now();
    const hash = await wallet.writeContract({ address: pair, abi: optionPairAbi, functionName: 'placeOrder', args: [id, true, 5n, 1n] } as never);
    const received = new Promise<number>((r) => waiting.set(hash.toLowerCase(), r));
    lat.push((await received) - t0);
    // Spread the blocks so each one is measured on its own, not queued behind the previous.
    await new Promise((r) => setTimeout(r, 50 + Math.random() * 100));
  }
  socket.disconnect();
  return lat;
}

async function main(): Promise<void> {
  const node = await startHardhatNode({ port: await freePort() });
  try {
    const addresses = await deployReferenceContracts({ rpcUrl: node.rpcUrl });
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

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
