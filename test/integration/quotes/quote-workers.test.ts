import { EventPublisher, topics } from '../../../shared/events';
import { JOBS } from '../../../workers/job-catalog';
import { closeQuote, hashStreamToken, quoteExpireJob, QuoteRepository } from '../../../shared/quotes';
import { NetworksService } from '../../../shared/networks';
import { HANDLERS } from '../../../workers/job.handlers';
import { assertNoTakerIdentity, eventually, topicEvents } from '../../support/events';
import { networkFile, randomAddress } from '../../support/fixtures';
import { buildApp, request } from '../../support/http';
import { quoteBody, STRATEGY_ROWS } from '../../support/quotes';
import { createTestEnv, type TestEnv } from '../../support/test-env';
import { workerReplicas } from '../../support/workers';

describe('quote workers', () => {
  let env: TestEnv;
  let app: ReturnType<typeof buildApp>['app'];
  const premiumMaker = randomAddress();
  // A replica's lock lapses within a second of its death: another takes its job over.
  const replicas = workerReplicas(() => env, { concurrency: 8, interestedMakers: [premiumMaker], lockDurationMs: 1000, stalledIntervalMs: 500 });
  const startReplica = (handlers = HANDLERS) => replicas.start({ handlers });

  beforeAll(async () => {
    env = await createTestEnv();
    app = buildApp(env).app;
    await new NetworksService(env.db).upsertNetwork(networkFile(31337));
  });
  afterEach(async () => {
    await replicas.closeAll();
  });
  afterAll(() => env.close());

  it('announces a new quote to the maker feed, interested makers and the taker, never leaking the taker', async () => {
    startReplica();
    const taker = randomAddress();
    const referrer = randomAddress();
    const { body } = await request(app)
      .post('/api/quote')
      .send(quoteBody(taker, STRATEGY_ROWS[7].legs, { referrer }))
      .expect(201);
    const feed = await eventually(
      () => topicEvents(env, topics.quotesRequests(31337)),
      (e) => e.some((x) => x.payload.quote_id === body.quote.id),
    );
    const mine = feed.filter((e) => e.payload.quote_id === body.quote.id);
    expect(mine).toHaveLength(1);
    expect(mine[0].event).toBe('rfq_request');
    expect(mine[0].payload).toMatchObject({
      quote_id: body.quote.id,
      chain_id: 31337,
      strategy: 'butterfly',
      directions: [1, 0, 1],
      taker_address_hash: body.quote.taker_address_hash,
      expires_at: body.quote.expires_at,
    });
    expect(mine[0].payload.legs).toHaveLength(3);

    const makerTopic = await eventually(
      () => topicEvents(env, topics.rfqMaker(premiumMaker)),
      (e) => e.length > 0,
    );
    expect(makerTopic.map((e) => e.payload.quote_id)).toContain(body.quote.id);

    const taker_ = await eventually(
      () => topicEvents(env, topics.rfqStream(hashStreamToken(body.stream_token))),
      (e) => e.length > 0,
    );
    expect(taker_[0].event).toBe('rfq_request');
    expect(taker_[0].payload).toMatchObject({ id: body.quote.id, taker_address: taker, referrer, taker_salt: body.quote.taker_salt });

    assertNoTakerIdentity(
      [...feed, ...makerTopic].map((e) => e.payload),
      { taker, referrer, salt: body.quote.taker_salt },
    );
    const row = await new QuoteRepository(env.db).findQuote(body.quote.id);
    expect(row?.state).toBe('open');
  });

  it('expires a quote once at the end of its window with two worker replicas', async () => {
    startReplica();
    startReplica();
    const { body } = await request(app)
      .post('/api/quote')
      .send(quoteBody(randomAddress(), STRATEGY_ROWS[0].legs, { expires_in: 1 }))
      .expect(201);
    const stream = topics.rfqStream(hashStreamToken(body.stream_token));
    const events = await eventually(
      () => topicEvents(env, stream),
      (e) => e.some((x) => x.event === 'rfq_result'),
    );
    const results = events.filter((e) => e.event === 'rfq_result');
    expect(results).toHaveLength(1);
    expect(results[0].payload).toMatchObject({ quote_id: body.quote.id, state: 'expired' });
    expect(Date.parse(String(results[0].payload.closed_at))).toBeGreaterThanOrEqual(Date.parse(body.quote.expires_at));
    const poll = await request(app).get(`/api/quote/${body.quote.id}`).query({ stream_token: body.stream_token }).expect(200);
    expect(poll.body.quote.state).toBe('expired');
    // No expiry job: the replicas' clocks expire it from its row, and only the one whose statement closed it publishes.
    expect(await env.queue.queue('quotes').getJob(quoteExpireJob.jobId({ quote_id: body.quote.id }))).toBeUndefined();
    // Nothing more arrives later: once the result is marked published, a sentinel published
    // after it marks the end of anything either replica could have sent.
    await eventually(
      async () => (await env.db.query(`SELECT result_published_at FROM quotes WHERE id = $1`, [body.quote.id]))[0].result_published_at as Date | null,
      (at) => at !== null,
    );
    await new EventPublisher({ redis: env.redis, config: env.config }).publish(stream, 'rfq_offer', { quote_id: 'sentinel' });
    const all = await eventually(
      () => topicEvents(env, stream),
      (e) => e.some((x) => x.payload.quote_id === 'sentinel'),
    );
    expect(all.filter((e) => e.event === 'rfq_result')).toHaveLength(1);
  });

  it('a replica whose expiry clock closed the quote and died before publishing: the sweeper publishes the result once', async () => {
    const { body } = await request(app)
      .post('/api/quote')
      .send(quoteBody(randomAddress(), STRATEGY_ROWS[0].legs, { expires_in: 1 }))
      .expect(201);
    // What the dead replica's statement left: the quote closed, announced (as the clock closes only
    // announced quotes), its result never published; past the sweeper's grace, without waiting for it.
    await env.db.query(`UPDATE quotes SET announced_at = now(), expires_at = now() - interval '1 minute' WHERE id = $1`, [body.quote.id]);
    expect(await closeQuote(env.db, body.quote.id, 'expired')).not.toBeNull();
    await env.db.query(`UPDATE quotes SET closed_at = now() - interval '30 seconds' WHERE id = $1`, [body.quote.id]);
    startReplica();
    await env.queue.enqueue(JOBS['quotes.sweep'], {});
    const stream = topics.rfqStream(hashStreamToken(body.stream_token));
    const events = await eventually(
      () => topicEvents(env, stream),
      (e) => e.some((x) => x.event === 'rfq_result'),
      15000,
    );
    expect(events.filter((e) => e.event === 'rfq_result')).toHaveLength(1);
    expect((await new QuoteRepository(env.db).findQuote(body.quote.id))?.state).toBe('expired');
  }, 30000);

  it('the sweeper expires a quote whose jobs were lost, tells its taker once, keeps it off the feed past its window, and forgets old idempotency keys', async () => {
    const { body } = await request(app)
      .post('/api/quote')
      .send(quoteBody(randomAddress(), STRATEGY_ROWS[5].legs, { expires_in: 1 }))
      .expect(201);
    await env.queue.queue('quotes').obliterate({ force: true });
    await env.db.query(
      `INSERT INTO idempotency_keys (scope, lookup_hash, request_mac, status, sealed_response, created_at) VALUES ('quote.create', 'old-key', 'h', 201, 'x', now() - interval '25 hours')`,
    );
    // Past the sweeper's grace, without waiting for it.
    await env.db.query(`UPDATE quotes SET created_at = now() - interval '1 minute', expires_at = now() - interval '30 seconds' WHERE id = $1`, [body.quote.id]);
    startReplica();
    await env.queue.enqueue(JOBS['quotes.sweep'], {});
    const stream = topics.rfqStream(hashStreamToken(body.stream_token));
    const events = await eventually(
      () => topicEvents(env, stream),
      (e) => e.some((x) => x.event === 'rfq_result'),
    );
    expect(events.map((e) => e.event)).toEqual(['rfq_result']);
    // The purge is the sweep's last step: it may finish just after the result is published.
    const left = await eventually(
      async () => (await env.db.query(`SELECT count(*)::int AS n FROM idempotency_keys WHERE lookup_hash = 'old-key'`))[0].n as number,
      (n) => n === 0,
    );
    expect(left).toBe(0);
    expect((await topicEvents(env, topics.quotesRequests(31337))).map((e) => e.payload.quote_id)).not.toContain(body.quote.id);
  }, 20000);
});
