import { randomUUID } from 'node:crypto';
import { QueueEvents } from 'bullmq';
import { quotesRetentionJob, QUOTES_QUEUE } from '../../../shared/quotes';
import { bullPrefix, closeRedis, createBullConnection, type Redis } from '../../../shared/platform/redis';
import { NetworksService } from '../../../shared/networks';
import { scheduleQuoteJobs } from '../../../workers';
import { networkFile, randomAddress } from '../../support/fixtures';
import { buildApp, request } from '../../support/http';
import { quoteBody, STRATEGY_ROWS } from '../../support/quotes';
import { createTestEnv, type TestEnv } from '../../support/test-env';
import { startWorkers, type Workers } from '../../support/workers';
import { jobFinished } from './job-events';
import { captureLogs } from './log-capture';

/**
 * Retention: closed quotes older than QUOTE_RETENTION_DAYS go, with their legs and offers, a
 * bounded number of batches per run; open quotes and recent ones stay. Rows are backdated in
 * Postgres rather than waited for.
 */
describe('quote retention job', () => {
  let env: TestEnv;
  let workers: Workers;
  let conn: Redis;
  let events: QueueEvents;
  const logs = captureLogs();

  /** Runs the job once through a worker and waits for it to finish. */
  async function runRetention(): Promise<void> {
    const queue = env.queue.queue(QUOTES_QUEUE);
    await (await queue.getJob(quotesRetentionJob.jobId({})))?.remove();
    const done = jobFinished(events, quotesRetentionJob.jobId({}));
    await env.queue.enqueue(quotesRetentionJob, {});
    await done;
  }

  async function present(ids: string[]): Promise<{ quotes: string[]; legs: number; offers: number }> {
    const [quotes, [legs], [offers]] = await Promise.all([
      env.db.query(`SELECT id FROM quotes WHERE id = ANY($1::uuid[]) ORDER BY id`, [ids]),
      env.db.query(`SELECT count(*)::int AS n FROM quote_legs WHERE quote_id = ANY($1::uuid[])`, [ids]),
      env.db.query(`SELECT count(*)::int AS n FROM quote_offers WHERE quote_id = ANY($1::uuid[])`, [ids]),
    ]);
    return { quotes: quotes.map((r: { id: string }) => r.id), legs: legs.n, offers: offers.n };
  }

  beforeAll(async () => {
    env = await createTestEnv({ QUOTE_RETENTION_BATCH: '2', QUOTE_RETENTION_MAX_BATCHES: '2' });
    await new NetworksService(env.db).upsertNetwork(networkFile(31337));
    conn = createBullConnection(env.config);
    events = new QueueEvents(QUOTES_QUEUE, { connection: conn, prefix: bullPrefix(env.config.REDIS_PREFIX, QUOTES_QUEUE) });
    await events.waitUntilReady();
    workers = startWorkers(env, { concurrency: 2, logger: logs.logger });
  });
  afterAll(async () => {
    await workers.close();
    await events.close();
    await closeRedis(conn);
    await env.close();
  });

  it('purges closed quotes past the age with their legs and offers, in bounded batches, logging progress; keeps the rest', async () => {
    const { app } = buildApp(env);
    const ids: string[] = [];
    for (let i = 0; i < 8; i++) {
      const res = await request(app).post('/api/quote').send(quoteBody(randomAddress(), STRATEGY_ROWS[2].legs)).expect(201);
      ids.push(res.body.quote.id);
    }
    const [oldClosed, recentClosed, oldOpen, open] = [ids.slice(0, 5), ids[5], ids[6], ids[7]];
    const states = ['expired', 'filled', 'cancelled', 'expired', 'expired'];
    for (const [i, id] of oldClosed.entries()) {
      await env.db.query(
        `UPDATE quotes SET state = $2, closed_at = now() - make_interval(days => $3), created_at = now() - make_interval(days => $3 + 1) WHERE id = $1`,
        [id, states[i], 31 + i],
      );
    }
    await env.db.query(`UPDATE quotes SET state = 'expired', closed_at = now() - interval '29 days' WHERE id = $1`, [recentClosed]);
    await env.db.query(`UPDATE quotes SET created_at = now() - interval '40 days', expires_at = now() - interval '40 days' WHERE id = $1`, [oldOpen]);
    for (const [n, id] of [...oldClosed, recentClosed].entries()) {
      await env.db.query(
        `INSERT INTO quote_offers (id, quote_id, chain_id, maker, offer_type, package_premium, maker_pays_taker, premium_token, nonce, deadline, signature, digest)
         VALUES ($1, $2, 31337, $3, 'package', 1000, false, $4, $5, 0, '0x', '0x')`,
        [randomUUID(), id, randomAddress(), randomAddress(), n + 1],
      );
    }
    const kept = [recentClosed, oldOpen, open];
    const before = await present(kept);

    await runRetention();
    // Two batches of two: four of the five old closed quotes are gone, the longest closed first.
    expect((await present(oldClosed)).quotes).toEqual([oldClosed[0]]);
    expect(await present(oldClosed.slice(1))).toEqual({ quotes: [], legs: 0, offers: 0 });
    const progress = logs.lines().filter((l) => l.msg === 'retention purged a batch of closed quotes');
    expect(progress.map((l) => [l.batch, l.deleted, l.total])).toEqual([
      [1, 2, 2],
      [2, 2, 4],
    ]);
    expect(logs.lines().some((l) => l.msg === 'retention stopped at its batch limit; the next run continues')).toBe(true);

    await runRetention();
    expect(await present(oldClosed)).toEqual({ quotes: [], legs: 0, offers: 0 });

    // Idempotent: nothing left to purge, nothing else touched.
    await runRetention();
    expect(await present(kept)).toEqual(before);
    expect(before.quotes).toHaveLength(3);
    expect(before.legs).toBe(6);
    expect(before.offers).toBe(1);
  });

  it('the workers role schedules retention beside the sweeper under fixed scheduler ids', async () => {
    const config = { QUOTE_SWEEP_INTERVAL_MS: 600_000, QUOTE_RETENTION_INTERVAL_MS: 3_600_000 };
    const queue = env.queue.queue(QUOTES_QUEUE);
    try {
      await scheduleQuoteJobs(env.queue, config);
      await scheduleQuoteJobs(env.queue, config); // a second replica upserts the same two
      const schedulers = await queue.getJobSchedulers();
      expect(schedulers.map((s) => [s.key, s.name, s.every]).sort()).toEqual([
        ['quotes-retention', quotesRetentionJob.name, 3_600_000],
        ['quotes-sweep', 'quotes.sweep', 600_000],
      ]);
    } finally {
      await queue.removeJobScheduler('quotes-retention');
      await queue.removeJobScheduler('quotes-sweep');
    }
  });
});
