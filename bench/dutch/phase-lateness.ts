import { randomUUID } from 'node:crypto';
import { Queue, Worker } from 'bullmq';
import { zeroAddress } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createDataSource } from '../../shared/entities';
import { dutchAwardJob, DutchRepository } from '../../shared/dutch';
import { loadConfig } from '../../shared/platform/config';
import { createLogger } from '../../shared/platform/logging';
import { Metrics } from '../../shared/platform/metrics';
import { JobQueue } from '../../shared/platform/queue';
import { bullPrefix, closeRedis, createBullConnection, createRedis } from '../../shared/platform/redis';
import { hashStreamToken, quoteExpireJob } from '../../shared/quotes';
import { NetworksService } from '../../shared/networks';
import { JOBS } from '../../workers/job-catalog';
import { HANDLERS } from '../../workers/job.handlers';
import { buildWorkerContext } from '../../workers/worker-context';
import { WorkerHost } from '../../workers/worker-host';
import { DutchClock } from '../../workers/dutch/dutch-clock';
import { benchDatabase, percentile } from '../support/bench-db';
import { DEVELOPMENT_SERVICE_SIGNER_KEY } from '../../shared/chain/service-signer';
import { benchPrefix, runBench } from '../support/bench-cleanup';

/**
 * Dutch phase lateness at N concurrent auctions (docs/PERFORMANCE.md): N live Dutch quotes whose
 * competitions end 0.5-2 s after a common start (half of them have a bid, hence an exclusive
 * window of 0.5 s) and whose window ends 2 s after that, advanced by one worker process as the
 * workers role runs it: the job host (concurrency 16) and the Dutch clock (BENCH_DUTCH_CLOCK=off
 * leaves the jobs alone, to compare). Lateness of a transition = when it
 * committed minus when it was due (award: compete_ends_at; open: exclusive_ends_at; expiry:
 * expires_at); the publish follows its commit by one Redis round trip. Baseline, same run: bare
 * BullMQ delayed no-op jobs with the same delays, lateness = handler start minus due time.
 */
const N = Number(process.env.BENCH_AUCTIONS ?? 1000);
const PAIR = '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512';
const MOTHERSHIP = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
const USDC = '0xa513E6E4b8f2a923D98304ec87F64353C4D5C853';
const competeMs = (i: number) => 500 + ((i * 7919) % 1501);

async function inBatches<T>(items: T[], size: number, run: (t: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(run));
}

const summary = (xs: number[]) => ({ n: xs.length, p50: Math.round(percentile(xs, 50)), p99: Math.round(percentile(xs, 99)) });

/** Bare BullMQ: N delayed no-op jobs with the Dutch competing delays; lateness of their start. */
async function baseline(redisUrl: string, prefix: string): Promise<number[]> {
  const name = 'bench-baseline';
  const queue = new Queue(name, { connection: createBullConnection(redisUrl), prefix });
  const late: number[] = [];
  const worker = new Worker(name, async (job) => void late.push(Date.now() - (job.data as { due: number }).due), {
    connection: createBullConnection(redisUrl),
    prefix,
    concurrency: 16,
  });
  const now = Date.now();
  await queue.addBulk(
    Array.from({ length: N }, (_, i) => ({ name: 'noop', data: { due: now + competeMs(i) }, opts: { delay: competeMs(i), jobId: `b${i}` } })),
  );
  while (late.length < N) await new Promise((r) => setTimeout(r, 50));
  await worker.close();
  await queue.obliterate({ force: true });
  await queue.close();
  return late;
}

async function main(): Promise<void> {
  const db = await benchDatabase('dutch');
  const prefix = benchPrefix('dutch');
  // Its own loopback node registers the development signer; with DEVCHAIN=off the key must be named.
  const config = loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'error',
    DEVCHAIN: 'off',
    SERVICE_SIGNER_KEY: DEVELOPMENT_SERVICE_SIGNER_KEY,
    DATABASE_URL: db.url,
    REDIS_PREFIX: prefix,
    QUOTE_SWEEP_INTERVAL_MS: '600000',
  });
  const logger = createLogger({ level: config.LOG_LEVEL });
  const ds = createDataSource({ url: db.url, poolSize: 20 });
  await ds.initialize();
  const redis = createRedis(config);
  const queue = new JobQueue(redis, prefix);
  const deps = { config, logger, db: ds, redis, metrics: new Metrics(false), queue };
  try {
    await new NetworksService(ds).upsertNetwork({
      chain_id: 31337,
      name: 'Bench',
      rpc_urls: ['http://127.0.0.1:8545'],
      contracts: { mothership: MOTHERSHIP, opshuns_core: PAIR },
      tokens: [],
    });
    const base = await baseline(config.REDIS_URL, bullPrefix(`${prefix}base:`, 'bench-baseline'));

    // As the workers role runs: the job host, and the Dutch clock beside it (BENCH_DUTCH_CLOCK=off: jobs alone).
    const ctx = buildWorkerContext(deps, async () => []);
    const host = new WorkerHost(ctx, JOBS, HANDLERS, { redis: config, redisPrefix: prefix, concurrency: 16 });
    const clock = process.env.BENCH_DUTCH_CLOCK === 'off' ? null : new DutchClock(ctx);
    host.start();
    clock?.start();
    // The auctions are written straight to the database, then their jobs scheduled as the create
    // path schedules them: what is measured is the phase machinery at N live auctions, not the
    // create path (bench:quote measures that), so all N compete at once whatever the machine's load.
    const repo = new DutchRepository(ds);
    const nowS = Math.floor(Date.now() / 1000);
    const rows = Array.from({ length: N }, () => ({ id: randomUUID(), maker: privateKeyToAccount(generatePrivateKey()).address }));
    const lead = 5000 + N * 20;
    const t0 = Date.now() + lead;
    let inserted = 0;
    await inBatches(
      rows.map((r, i) => [r, i] as const),
      20,
      async ([r, i]) => {
        const competeEnd = t0 + competeMs(i);
        await repo.insert(
          null,
          {
            id: r.id,
            chain_id: 31337,
            offer_format: 'dutch_only',
            polarity: 'b_is_buy',
            strategy: 'capped_call',
            taker_address: r.maker,
            referrer: zeroAddress,
            taker_salt: `0x${'11'.repeat(32)}`,
            taker_address_hash: `0x${'22'.repeat(32)}`,
            directions: [1, 0],
            pair_contract: PAIR,
            expiry_timestamp: nowS + 86_400,
            stream_token_hash: hashStreamToken(r.id),
            expires_at: new Date(competeEnd + 2000),
            dutch_request: { dutch_premium: { token: USDC } },
            dutch_request_digest: `0x${r.id.replace(/-/g, '').padEnd(64, '0')}`,
            taker_signature: `0x${'33'.repeat(65)}`,
            taker_nonce: String(i + 1),
            compete_ends_at: new Date(competeEnd),
            exclusive_ms: 500,
          },
          [0, 1].map((idx) => ({
            idx,
            option_type: 0 as const,
            structure: idx as 0 | 1,
            direction: (1 - idx) as 0 | 1,
            strike_wad: '3000',
            amount: '1',
            start_exercise_timestamp: 0,
            expiry_timestamp: nowS + 86_400,
          })),
        );
        if (i % 2 === 0) await ds.transaction((m) => repo.upsertBid(m, r.id, r.maker, 10 + (i % 7), 5));
        await queue.enqueueMany([
          { spec: dutchAwardJob, payload: { quote_id: r.id }, opts: { delay: competeEnd - Date.now() } },
          { spec: quoteExpireJob, payload: { quote_id: r.id }, opts: { delay: competeEnd + 2000 - Date.now() } },
        ]);
        inserted++;
      },
    );
    if (Date.now() > t0) throw new Error(`writing ${N} auctions took past their start; raise the lead time`);
    const started = Date.now();
    const createdIn = started - (t0 - lead);
    const lateBids = N - inserted;
    for (;;) {
      const [{ n }] = await ds.query(`SELECT count(*)::int AS n FROM quotes WHERE state = 'open'`);
      if (n === 0) break;
      if (Date.now() - started > 120_000) throw new Error(`${n} auctions still open after 120 s`);
      await new Promise((r) => setTimeout(r, 100));
    }
    await clock?.close();
    await host.close();
    const ms = (a: string, b: string, where = 'true') =>
      ds
        .query(`SELECT (extract(epoch FROM ${a} - ${b}) * 1000)::float8 AS ms FROM quotes WHERE ${where}`)
        .then((rows: { ms: number }[]) => rows.map((r) => r.ms));
    const award = await ms('awarded_at', 'compete_ends_at');
    const open = await ms('opened_at', 'exclusive_ends_at', 'winner IS NOT NULL AND opened_at IS NOT NULL');
    const expire = await ms('closed_at', 'expires_at');
    const b = summary(base);
    const result = {
      auctions: N,
      created_in_ms: createdIn,
      not_written: lateBids,
      baseline_bullmq_delayed: b,
      award: summary(award),
      open: summary(open),
      expire: summary(expire),
      p99_ratio_to_baseline: {
        award: +(percentile(award, 99) / Math.max(1, b.p99)).toFixed(2),
        open: +(percentile(open, 99) / Math.max(1, b.p99)).toFixed(2),
        expire: +(percentile(expire, 99) / Math.max(1, b.p99)).toFixed(2),
      },
    };
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  } finally {
    await queue.close();
    await closeRedis(redis);
    await ds.destroy();
    await db.drop();
  }
}

runBench(main);
