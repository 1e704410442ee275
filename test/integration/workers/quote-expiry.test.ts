import { randomBytes, randomUUID } from 'node:crypto';
import { QueueEvents } from 'bullmq';
import type { Express } from 'express';
import { zeroAddress } from 'viem';
import { createApp } from '../../../api/app';
import { topics } from '../../../shared/events';
import { JobQueue } from '../../../shared/platform/queue';
import { hashStreamToken, quoteExpireJob, quotesSweepJob, QUOTES_QUEUE, QuoteRepository } from '../../../shared/quotes';
import { bullPrefix, closeRedis, createBullConnection, type Redis } from '../../../shared/platform/redis';
import { NetworksService } from '../../../shared/networks';
import { expireQuote } from '../../../workers/quotes/quote-expiry';
import { RetryLater } from '../../../workers/retry-later';
import { buildWorkerContext } from '../../../workers/worker-context';
import { topicEvents } from '../../support/events';
import { networkFile, randomAddress } from '../../support/fixtures';
import { FIXTURE_PAIR, quoteBody, STRATEGY_ROWS } from '../../support/quotes';
import { createTestEnv, type TestEnv } from '../../support/test-env';
import { startWorkers, type Workers } from '../../support/workers';
import { jobFinished } from './job-events';
import { captureLogs } from './log-capture';
import { request } from '../../support/http';

/** Expiry and the sweeper: a bad quote is skipped, an early job waits, a quote inside the skew closes. */
describe('quote expiry and the sweeper', () => {
  let env: TestEnv;
  let lostJobsApp: Express;
  let lostQueue: JobQueue;
  let workers: Workers;
  let conn: Redis;
  let events: QueueEvents;
  const logs = captureLogs();
  const repo = () => new QuoteRepository(env.db);

  /** A quote through the API whose jobs are lost, as after a Redis flush: they went to a queue nobody consumes. */
  async function quoteWithLostJobs(expiresIn: number): Promise<{ id: string; stream_token: string; expires_at: string }> {
    const { body } = await request(lostJobsApp)
      .post('/api/quote')
      .send(quoteBody(randomAddress(), STRATEGY_ROWS[0].legs, { expires_in: expiresIn }))
      .expect(201);
    return { id: body.quote.id, stream_token: body.stream_token, expires_at: body.quote.expires_at };
  }

  beforeAll(async () => {
    env = await createTestEnv();
    lostQueue = new JobQueue(env.redis, `${env.config.REDIS_PREFIX}lost:`);
    lostJobsApp = createApp({ ...env, queue: lostQueue }).app;
    await new NetworksService(env.db).upsertNetwork(networkFile(31337));
    conn = createBullConnection(env.config);
    events = new QueueEvents(QUOTES_QUEUE, { connection: conn, prefix: bullPrefix(env.config.REDIS_PREFIX, QUOTES_QUEUE) });
    await events.waitUntilReady();
  });
  beforeEach(() => {
    // The sweeper and the expiry job are under test here: no expiry clock racing them (quote-expiry-clock.test.ts tests it).
    workers = startWorkers(env, { logger: logs.logger, expiryClock: false });
  });
  afterEach(() => workers.close());
  afterAll(async () => {
    await lostQueue.close();
    await events.close();
    await closeRedis(conn);
    await env.close();
  });

  it('a quote that fails is logged and skipped; the sweeper still expires the others and finishes', async () => {
    // A row no publish can succeed for (its stream hash is not a hash), overdue before the others.
    const bad = randomUUID();
    await env.db.query(
      `INSERT INTO quotes (id, chain_id, offer_format, polarity, strategy, taker_address, referrer, taker_salt, taker_address_hash,
         directions, pair_contract, expiry_timestamp, stream_token_hash, expires_at, created_at)
       VALUES ($1, 31337, 'package_only', 'b_is_buy', 'single', $2, $3, $4, $4, '{1}', $5, $6, 'not-a-hash', now() - interval '1 minute', now() - interval '2 minutes')`,
      [bad, randomAddress(), zeroAddress, `0x${randomBytes(32).toString('hex')}`, FIXTURE_PAIR, Math.floor(Date.now() / 1000) + 86400],
    );
    const good = [await quoteWithLostJobs(60), await quoteWithLostJobs(60)];
    await env.db.query(`UPDATE quotes SET expires_at = now() - interval '30 seconds', created_at = now() - interval '40 seconds' WHERE id = ANY($1::uuid[])`, [
      good.map((g) => g.id),
    ]);

    const done = jobFinished(events, quotesSweepJob.jobId({}));
    await env.queue.enqueue(quotesSweepJob, {});
    await done;

    for (const g of good) {
      expect((await repo().findQuote(g.id))?.state).toBe('expired');
      const seen = await topicEvents(env, topics.rfqStream(hashStreamToken(g.stream_token)));
      expect(seen.map((e) => [e.event, e.payload.state])).toEqual([['rfq_result', 'expired']]);
    }
    const skipped = logs.lines().filter((l) => l.msg === 'sweeper skipped an item that failed; the next sweep tries it again');
    expect(skipped).toEqual([expect.objectContaining({ level: 40, step: 'expire', id: bad, err: expect.stringContaining('stream token hash') })]);
  });

  it('an expiry job that fires early waits out the rest of the window without spending an attempt', async () => {
    const q = await quoteWithLostJobs(3);
    const jobId = quoteExpireJob.jobId({ quote_id: q.id });
    const done = jobFinished(events, jobId);
    // As if Redis's clock ran ahead of ours: the job is due now, the quote's window is not over.
    await env.queue.enqueue(quoteExpireJob, { quote_id: q.id });
    await done;
    const row = await repo().findQuote(q.id);
    expect(row?.state).toBe('expired');
    expect(new Date(row!.closed_at!).getTime()).toBeGreaterThanOrEqual(Date.parse(q.expires_at) - env.config.QUOTE_EXPIRY_SKEW_MS);
    const job = await env.queue.queue(QUOTES_QUEUE).getJob(jobId);
    expect(job?.attemptsMade).toBe(1);
    expect(logs.lines().filter((l) => l.msg === 'job failed' && l.job_id === jobId)).toEqual([]);
    const seen = await topicEvents(env, topics.rfqStream(hashStreamToken(q.stream_token)));
    expect(seen.filter((e) => e.event === 'rfq_result')).toHaveLength(1);
  });

  it('a quote within QUOTE_EXPIRY_SKEW_MS of its end is expired; one further out asks to be retried when due', async () => {
    const ctx = buildWorkerContext({ ...env, config: Object.freeze({ ...env.config, QUOTE_EXPIRY_SKEW_MS: 10_000 }) }, async () => []);
    const near = await quoteWithLostJobs(60);
    await env.db.query(`UPDATE quotes SET expires_at = now() + interval '5 seconds' WHERE id = $1`, [near.id]);
    await expireQuote(ctx, near.id);
    const closed = await repo().findQuote(near.id);
    expect(closed?.state).toBe('expired');
    expect(new Date(closed!.closed_at!).getTime()).toBeLessThan(new Date(closed!.expires_at).getTime());

    const far = await quoteWithLostJobs(60);
    const early = await expireQuote(ctx, far.id).then(
      () => null,
      (err: unknown) => err,
    );
    expect(early).toBeInstanceOf(RetryLater);
    expect((early as RetryLater).delayMs).toBeGreaterThan(10_000);
    expect((await repo().findQuote(far.id))?.state).toBe('open');
    expect(await topicEvents(env, topics.rfqStream(hashStreamToken(far.stream_token)))).toEqual([]);
  });
});
