import { createApp } from '../../../api/app';
import { topics } from '../../../shared/events';
import { NetworksService } from '../../../shared/networks';
import { closeRedis, createRedis, type Redis } from '../../../shared/platform/redis';
import { hashStreamToken, quoteExpireJob, QUOTES_QUEUE, QuoteRepository } from '../../../shared/quotes';
import { startTestRedis, type TestRedis } from '../../faults/redis-server';
import { eventually, topicEvents } from '../../support/events';
import { networkFile, randomAddress } from '../../support/fixtures';
import { request } from '../../support/http';
import { quoteBody, STRATEGY_ROWS } from '../../support/quotes';
import { createTestEnv, type TestEnv } from '../../support/test-env';
import { startWorkers, type Workers } from '../../support/workers';

/**
 * Standard quotes expire by the workers' clock over the open quotes' index, not by a delayed job
 * per quote (issue #41): on time, after a worker restart, and after Redis lost its data, each
 * result told to the taker once. This file runs its own Redis, so losing its data touches no other file.
 */
describe('the quote expiry clock', () => {
  let redis: TestRedis;
  let env: TestEnv;
  let admin: Redis;
  let app: ReturnType<typeof createApp>['app'];
  let workers: Workers | null = null;
  const repo = () => new QuoteRepository(env.db);

  beforeAll(async () => {
    redis = await startTestRedis({ persistence: false });
    env = await createTestEnv({ REDIS_URL: redis.url });
    admin = createRedis(redis.url);
    app = createApp(env).app;
    await new NetworksService(env.db).upsertNetwork(networkFile(31337));
  }, 60_000);
  afterEach(async () => {
    await workers?.close(true);
    workers = null;
  });
  afterAll(async () => {
    await closeRedis(admin);
    await env.close();
    await redis.close();
  });

  async function create(expiresIn: number): Promise<{ id: string; stream_token: string; expires_at: string }> {
    const { body } = await request(app)
      .post('/api/quote')
      .send(quoteBody(randomAddress(), STRATEGY_ROWS[0].legs, { expires_in: expiresIn }))
      .expect(201);
    return { id: body.quote.id, stream_token: body.stream_token, expires_at: body.quote.expires_at };
  }

  /** The taker's rfq_result events, once the quote's result is marked published (nothing more comes after). */
  async function resultsOnceDone(q: { id: string; stream_token: string }) {
    await eventually(
      async () => (await env.db.query(`SELECT result_published_at FROM quotes WHERE id = $1`, [q.id]))[0].result_published_at as Date | null,
      (at) => at !== null,
      60_000,
    );
    const seen = await topicEvents(env, topics.rfqStream(hashStreamToken(q.stream_token)));
    return seen.filter((e) => e.event === 'rfq_result');
  }

  /** Until the database's clock is past the quote's window: the quote is due, whoever looks. */
  const pastWindow = (q: { id: string }) =>
    eventually(
      async () => (await env.db.query(`SELECT expires_at <= now() AS due FROM quotes WHERE id = $1`, [q.id]))[0].due as boolean,
      (due) => due,
      30_000,
    );

  it('expires a quote at the end of its window with no job of its own, and tells its taker once', async () => {
    workers = startWorkers(env);
    const q = await create(1);
    expect(await env.queue.queue(QUOTES_QUEUE).getJob(quoteExpireJob.jobId({ quote_id: q.id }))).toBeUndefined();
    const results = await resultsOnceDone(q);
    expect(results).toHaveLength(1);
    expect(results[0].payload).toMatchObject({ quote_id: q.id, state: 'expired' });
    const row = await repo().findQuote(q.id);
    expect(row?.state).toBe('expired');
    expect(new Date(row!.closed_at!).getTime()).toBeGreaterThanOrEqual(Date.parse(q.expires_at));
  }, 90_000);

  it('a quote whose window ended while no worker ran expires when one starts again', async () => {
    workers = startWorkers(env);
    const first = await create(1);
    expect((await resultsOnceDone(first)).map((e) => e.payload.state)).toEqual(['expired']);
    await workers.close();
    const q = await create(1);
    await pastWindow(q);
    expect((await repo().findQuote(q.id))?.state).toBe('open');
    workers = startWorkers(env);
    const results = await resultsOnceDone(q);
    expect(results.map((e) => e.payload.state)).toEqual(['expired']);
  }, 90_000);

  it('after Redis lost its data, a quote created before the loss still expires and its taker hears it', async () => {
    workers = startWorkers(env);
    const q = await create(2);
    await admin.flushall();
    const results = await resultsOnceDone(q);
    expect(results.map((e) => e.payload.state)).toEqual(['expired']);
    expect((await repo().findQuote(q.id))?.state).toBe('expired');
  }, 90_000);
});
