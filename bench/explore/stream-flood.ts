import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import IORedis from 'ioredis';
import { Client } from 'pg';
import { localPublicClient } from '../../shared/chain/clients';
import { ExploreWatchers } from '../../shared/explore';
import { percentile } from '../support/bench-db';
import { PhoenixConnection } from '../support/phoenix-connection';
import { benchServiceEnv } from '../support/service-env';
import { spawnServer } from '../support/spawn-server';
import { chainDatabase, mintClobStream, orderPlacer, startBenchChain } from './chain-fixture';
import { delegateToken } from './delegate';
import { runBench, stopChild } from '../support/bench-cleanup';

/**
 * bench:explore-flood: does the number of live Explore stream tokens slow the indexer? The
 * indexer runs alone in its own process (ROLES=indexer, newHeads over ws, confirmations 0), the
 * API, socket tier and workers in another, both on one Hardhat node with the reference contracts.
 * One CLOB stream is minted through the gate and joined. Each sample places one order on chain
 * and times, from the moment the transaction is sent:
 *   - indexer lag: until the indexer's cursor (moved in the same transaction as the block's rows;
 *     the lowest of the chain's contract sets, as the Explore routes read the head) covers the order's block, read from Postgres every 2 ms;
 *   - block -> socket: until the joined stream reads the order's `explore_clob_event`.
 * Two phases in the same run, same chain and processes: with that one stream (the baseline), then
 * after TOKENS more streams on the same CLOB are minted through the gate and opened by the
 * workers, JOINED of them joined on the socket tier (100 per connection), which relays the
 * pair's feed topic to each. Blocks are GAP_MS apart, so each is measured on its own.
 *
 *   npm run bench:explore-flood                      # 10,000 tokens, 2,000 joined, 40 blocks per phase
 *   BENCH_STREAM_TOKENS=2000 BENCH_JOINED_STREAMS=500 BENCH_BLOCKS=20 npm run bench:explore-flood
 */
const TOKENS = Number(process.env.BENCH_STREAM_TOKENS ?? 10_000);
const JOINED = Math.min(TOKENS, Number(process.env.BENCH_JOINED_STREAMS ?? 2_000));
const PER_CONNECTION = 100;
const BLOCKS = Number(process.env.BENCH_BLOCKS ?? 40);
const GAP_MS = Number(process.env.BENCH_BLOCK_GAP_MS ?? 1000);
const MINT_PARALLEL = 32;
const OPEN_DEADLINE_MS = 15 * 60_000;
const SAMPLE_DEADLINE_MS = 60_000;

/** CPU seconds (user + system) a process has used, from /proc. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  // utime and stime are fields 14 and 15 of stat; after "pid (comm) " they are at 11 and 12.
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

interface Phase {
  indexerLag: number[];
  toSocket: number[];
  indexerCpu: number;
  serviceCpu: number;
  seconds: number;
}

/** `p`, or a failure naming `what` after SAMPLE_DEADLINE_MS. */
function within<T>(p: Promise<T>, what: string): Promise<T> {
  return Promise.race([p, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(what)), SAMPLE_DEADLINE_MS).unref())]);
}

const line = (xs: number[]) => `p50 ${percentile(xs, 50).toFixed(1)} ms   p99 ${percentile(xs, 99).toFixed(1)} ms   max ${percentile(xs, 100).toFixed(1)} ms`;

async function main(): Promise<void> {
  const { node, addresses } = await startBenchChain();
  const db = await chainDatabase('flood', node.rpcUrl, addresses, { newHeads: true });
  const many = String(TOKENS + 100);
  const env = benchServiceEnv({
    roles: 'api,socket,workers',
    databaseUrl: db.url,
    tag: 'flood',
    extra: {
      // One bench client mints every token: its IP, wallet and key budgets are raised past TOKENS;
      // the per-subject cap (EXPLORE_STREAMS_PER_SUBJECT, 20,000) stays as shipped.
      EXPLORE_RATE_LIMIT: '1000000',
      EXPLORE_RATE_LIMIT_PER_IP: '1000000',
      EXPLORE_STREAMS_PER_IP: many,
      EXPLORE_STREAMS_PER_WALLET: many,
      EXPLORE_STREAMS_PER_TAKER_KEY: many,
      NONCE_RATE_LIMIT: '100000',
      LOGIN_RATE_LIMIT: '100000',
      // Each bench connection joins its 100 streams at once.
      SOCKET_MAX_CHANNELS: String(PER_CONNECTION),
      SOCKET_JOIN_BURST: String(PER_CONNECTION + 10),
    },
  });
  // The same prefix and database: the indexer appends to the outboxes the workers drain.
  const indexer = spawnServer('bin/main.ts', { ...env, ROLES: 'indexer' }, 'started');
  const service = spawnServer('bin/main.ts', env, 'api listening');
  const redis = new IORedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const pg = new Client({ connectionString: db.url });
  let conn: PhoenixConnection | null = null;
  const joinedConns: PhoenixConnection[] = [];
  /** Events the JOINED streams read, of the pair's orders: each block's one placement should reach every one. */
  let relayedEvents = 0;
  try {
    await indexer.port;
    const base = `http://127.0.0.1:${await service.port}`;
    await pg.connect();
    const bearer = await delegateToken(base, db.url);
    const pair = addresses.pair;
    const topic = await mintClobStream(base, bearer, pair);

    const arrived = new Map<string, number>();
    const waiting = new Map<string, (at: number) => void>();
    let snapshot!: () => void;
    const snapped = new Promise<void>((r) => (snapshot = r));
    conn = await PhoenixConnection.open(`${base.replace(/^http/, 'ws')}/socket`, (_topic, event, payload, at) => {
      if (event === 'explore_clob_snapshot') snapshot();
      const hash = (payload as { tx_hash?: string }).tx_hash?.toLowerCase();
      if (event !== 'explore_clob_event' || !hash) return;
      arrived.set(hash, at);
      waiting.get(hash)?.(at);
    });
    await conn.join(topic);
    await within(snapped, 'the stream sent no snapshot');

    const place = orderPlacer(node.rpcUrl, pair);
    const chain = localPublicClient(node.rpcUrl);
    const cursor = async () =>
      Number((await pg.query<{ b: string | null }>(`SELECT min(block_number) AS b FROM indexer_cursors WHERE chain_id = 31337`)).rows[0]?.b ?? -1);

    const phase = async (name: string): Promise<Phase> => {
      const out: Phase = { indexerLag: [], toSocket: [], indexerCpu: -cpuSeconds(indexer.child.pid!), serviceCpu: -cpuSeconds(service.child.pid!), seconds: 0 };
      const started = performance.now();
      for (let i = 0; i < BLOCKS; i++) {
        const { hash, sentAt } = await place();
        const key = hash.toLowerCase();
        const socket = new Promise<number>((resolve) => {
          const at = arrived.get(key);
          if (at !== undefined) resolve(at);
          else waiting.set(key, resolve);
        });
        const block = Number((await chain.getTransactionReceipt({ hash })).blockNumber);
        const until = Date.now() + SAMPLE_DEADLINE_MS;
        while ((await cursor()) < block) {
          if (Date.now() > until) throw new Error(`${name}: block ${block} not indexed within ${SAMPLE_DEADLINE_MS} ms`);
          await new Promise((r) => setTimeout(r, 2));
        }
        out.indexerLag.push(performance.now() - sentAt);
        out.toSocket.push((await within(socket, `${name}: ${key} never reached the stream`)) - sentAt);
        waiting.delete(key);
        await new Promise((r) => setTimeout(r, GAP_MS * (0.75 + Math.random() * 0.5)));
      }
      out.seconds = (performance.now() - started) / 1000;
      out.indexerCpu += cpuSeconds(indexer.child.pid!);
      out.serviceCpu += cpuSeconds(service.child.pid!);
      return out;
    };

    const quiet = await phase('one stream');

    // TOKENS more streams on the same CLOB, through the gate; the workers open each (snapshot, watcher).
    const mintStarted = performance.now();
    let minted = 0;
    const floodTopics: string[] = [];
    await Promise.all(
      Array.from({ length: MINT_PARALLEL }, async () => {
        while (minted < TOKENS) {
          minted++;
          floodTopics.push(await mintClobStream(base, bearer, pair));
        }
      }),
    );
    const mintSeconds = (performance.now() - mintStarted) / 1000;
    const watchers = new ExploreWatchers(redis, env.REDIS_PREFIX);
    const openUntil = Date.now() + OPEN_DEADLINE_MS;
    let live = 0;
    while ((live = await watchers.count('clob', 31337, pair)) < TOKENS + 1) {
      if (Date.now() > openUntil) throw new Error(`only ${live} of ${TOKENS + 1} streams opened`);
      await new Promise((r) => setTimeout(r, 1000));
    }
    const openSeconds = (performance.now() - mintStarted) / 1000;
    const socketUrl = `${base.replace(/^http/, 'ws')}/socket`;
    for (let i = 0; i < JOINED; i += PER_CONNECTION) {
      const c = await PhoenixConnection.open(socketUrl, (_topic, event) => {
        if (event === 'explore_clob_event') relayedEvents++;
      });
      joinedConns.push(c);
      await Promise.all(floodTopics.slice(i, Math.min(JOINED, i + PER_CONNECTION)).map((t) => c.join(t)));
    }
    // Let the snapshots' publishes finish before timing.
    await new Promise((r) => setTimeout(r, 3000));
    relayedEvents = 0;

    const flooded = await phase(`${TOKENS} streams`);
    // The last block's events may still be on their way to the joined streams.
    await new Promise((r) => setTimeout(r, 2000));

    const ratio = (a: number[], b: number[], p: number) => (percentile(a, p) / percentile(b, p)).toFixed(3);
    const cpu = (p: Phase) =>
      `indexer CPU ${((p.indexerCpu / p.seconds) * 100).toFixed(1)} % of a core, API+socket+workers ${((p.serviceCpu / p.seconds) * 100).toFixed(1)} %`;
    process.stdout.write(
      `\nexplore stream flood: ${BLOCKS} blocks per phase, ~${GAP_MS} ms apart; ${TOKENS} tokens minted in ${mintSeconds.toFixed(1)} s, all ${live} watchers open after ${openSeconds.toFixed(1)} s\n`,
    );
    process.stdout.write(`one stream (baseline)  indexer lag     ${line(quiet.indexerLag)}\n`);
    process.stdout.write(`${String(live).padEnd(6)} streams          indexer lag     ${line(flooded.indexerLag)}\n`);
    process.stdout.write(
      `indexer lag ratio flooded / baseline: p50 ${ratio(flooded.indexerLag, quiet.indexerLag, 50)}, p99 ${ratio(flooded.indexerLag, quiet.indexerLag, 99)}   target <= 1.10\n`,
    );
    process.stdout.write(`one stream (baseline)  block -> socket ${line(quiet.toSocket)}\n`);
    process.stdout.write(`${String(live).padEnd(6)} streams          block -> socket ${line(flooded.toSocket)}\n`);
    process.stdout.write(`baseline: ${cpu(quiet)}\nflooded:  ${cpu(flooded)}\n`);
    process.stdout.write(
      `${JOINED} joined streams read ${relayedEvents} order events in the flooded phase: ${(relayedEvents / Math.max(1, JOINED)).toFixed(1)} each for ${BLOCKS} blocks\n`,
    );
  } finally {
    conn?.close();
    for (const c of joinedConns) c.close();
    await Promise.all([stopChild(indexer.child), stopChild(service.child)]);
    await pg.end().catch(() => undefined);
    redis.disconnect();
    await db.drop();
    await node.stop();
  }
}

runBench(main);
