import type { Express } from 'express';
import { Client } from 'pg';
import { createApp } from '../../api/app';
import { topics } from '../../shared/events';
import { EventHistory } from '../../shared/platform/event-bus';
import { Lifecycle } from '../../shared/platform/lifecycle';
import { JobQueue } from '../../shared/platform/queue';
import { QUOTES_QUEUE, quotesSweepJob } from '../../shared/quotes';
import { NetworksService } from '../../shared/networks';
import { startWorkers } from '../../workers';
import { networkFile, randomAddress } from '../support/fixtures';
import { request } from '../support/http';
import { quoteBody, STRATEGY_ROWS } from '../support/quotes';
import { createTestEnv, type TestEnv } from '../support/test-env';
import { captureLogs } from '../integration/workers/log-capture';
import { startTestRedis, type TestRedis } from './redis-server';

/**
 * The reconnect trigger of the workers role (workers/recovery-sweep.ts): when its Redis or
 * Postgres connection comes back, it sweeps at once. The scheduled sweepers run every ten
 * minutes here, after one run at start-up, so a quote whose jobs were lost can only be announced
 * within the test by the sweep the reconnection triggered.
 */
const LONG_INTERVAL_MS = '600000';
/** Generous: far below the ten-minute schedule, far above what a sweep takes on a busy machine. */
const WAIT_MS = 30_000;

describe('the workers sweep when a dependency comes back', () => {
  let redis: TestRedis;
  let env: TestEnv;
  let lostQueue: JobQueue;
  let lostJobsApp: Express;
  let lifecycle: Lifecycle;
  const logs = captureLogs();

  beforeAll(async () => {
    redis = await startTestRedis();
    env = await createTestEnv({ REDIS_URL: redis.url, QUOTE_SWEEP_INTERVAL_MS: LONG_INTERVAL_MS, ORDER_SWEEP_INTERVAL_MS: LONG_INTERVAL_MS });
    await new NetworksService(env.db).upsertNetwork(networkFile(31337));
    // Creates whose jobs go to a queue nobody consumes: as if the enqueue had been lost in an outage.
    lostQueue = new JobQueue(env.redis, `${env.config.REDIS_PREFIX}lost:`);
    lostJobsApp = createApp({ ...env, queue: lostQueue }).app;
    lifecycle = new Lifecycle(logs.logger, 10_000);
    await startWorkers({ ...env, logger: logs.logger }, lifecycle, { concurrency: 4 });
    // The scheduled sweep runs once at start; after that, not for ten minutes.
    const sweeps = env.queue.queue(QUOTES_QUEUE);
    await waitUntil('the start-up sweep', async () => (await sweeps.getJobs(['completed'])).some((j) => j.name === quotesSweepJob.name));
  }, 60_000);

  afterAll(async () => {
    await lifecycle?.shutdown('test over');
    await lostQueue?.close();
    await env?.close();
    await redis?.close();
  });

  async function quoteWithLostJobs(): Promise<string> {
    const { body } = await request(lostJobsApp)
      .post('/api/quote')
      .send(quoteBody(randomAddress(), STRATEGY_ROWS[0].legs, { expires_in: 120 }))
      .expect(201);
    return body.quote.id as string;
  }

  /** The quote's rfq_request is on the chain's request feed and the row says announced. */
  async function announced(quoteId: string): Promise<boolean> {
    const [row] = await env.db.query(`SELECT announced_at FROM quotes WHERE id = $1`, [quoteId]);
    if (!row?.announced_at) return false;
    const feed = await new EventHistory(env.redis, env.config).readSince(topics.quotesRequests(31337).key, 0);
    return feed.events.some((e) => e.event === 'rfq_request' && (JSON.parse(e.data) as { quote_id?: string }).quote_id === quoteId);
  }

  function recoveryLines(dependency: string): Record<string, unknown>[] {
    return logs.lines().filter((l) => typeof l.msg === 'string' && l.msg.startsWith(`${dependency} reconnected: sweeping`));
  }

  it('Redis restarted: the workers announce a quote whose jobs were lost as soon as they reconnect, and say so in one line', async () => {
    const id = await quoteWithLostJobs();
    expect(await announced(id)).toBe(false);
    const linesBefore = recoveryLines('redis').length;

    await redis.stop('SIGKILL');
    await redis.start();

    await waitUntil('the quote announced after the reconnect', () => announced(id));
    await waitUntil('the recovery line', () => recoveryLines('redis').length > linesBefore);
    const line = recoveryLines('redis')[linesBefore];
    expect(line.msg).toMatch(/^redis reconnected: sweeping redid .*announce=1/);
    expect(line).toMatchObject({ dependency: ['redis'], redone: expect.objectContaining({ announce: 1 }) });
  }, 60_000);

  it('Postgres sessions terminated: the workers announce a quote whose jobs were lost as soon as the pool reconnects', async () => {
    const id = await quoteWithLostJobs();
    expect(await announced(id)).toBe(false);
    const linesBefore = recoveryLines('postgres').length;

    const admin = new Client({ connectionString: env.config.DATABASE_URL, application_name: 'recovery-test-admin' });
    await admin.connect();
    try {
      const { rowCount } = await admin.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`,
      );
      expect(rowCount).toBeGreaterThan(0);
    } finally {
      await admin.end();
    }

    await waitUntil('the quote announced after the reconnect', () => announced(id).catch(() => false));
    await waitUntil('the recovery line', () => recoveryLines('postgres').length > linesBefore);
    expect(recoveryLines('postgres').some((l) => (l.redone as Record<string, number>).announce === 1)).toBe(true);
  }, 60_000);
});

async function waitUntil(what: string, check: () => Promise<boolean> | boolean, timeoutMs = WAIT_MS): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
