import type { Express } from 'express';
import { createApp } from '../../../api/app';
import { topics } from '../../../shared/events';
import { JobQueue } from '../../../shared/platform/queue';
import { ORDERS_QUEUE } from '../../../shared/orders';
import { dutchBody, recordFixturePair } from '../../support/dutch';
import type { ApiContext } from '../../../api/context';
import { NetworksService } from '../../../shared/networks';
import { Lifecycle } from '../../../shared/platform/lifecycle';
import { RedisEpoch } from '../../../shared/platform/redis';
import { startWorkers } from '../../../workers';
import { startTestRedis, type TestRedis } from '../../faults/redis-server';
import { eventually, topicEvents } from '../../support/events';
import { networkFile, randomAddress } from '../../support/fixtures';
import { buildApp, request } from '../../support/http';
import { indexBond, indexPlacement, orderBody } from '../../support/orders';
import { FIXTURE_USDC, quoteBody, STRATEGY_ROWS } from '../../support/quotes';
import { createTestEnv, type TestEnv } from '../../support/test-env';
import { bearer, newWallet, signIn } from '../../support/wallets';
import { captureLogs } from './log-capture';

/** A recorded order as the API answers it, which indexPlacement marks placed on chain. */
type Placed = Parameters<typeof indexPlacement>[1] & { id: string };

/**
 * After a Redis data loss the workers rebuild the queued work from Postgres
 * (workers/redis-loss.ts): an exclusive fill and a quote whose delayed expiry jobs were flushed
 * still end at their own times, and an order, which has no job to lose, still reads expired at
 * its own. The sweepers run every ten minutes here (after one run at start), so only the rebuild
 * can end the fill and the quote within the test.
 */
describe('queued work rebuilt after a FLUSHALL', () => {
  let redis: TestRedis;
  let env: TestEnv;
  let app: Express;
  let ctx: ApiContext;
  let epoch: RedisEpoch;
  let lifecycle: Lifecycle;
  const logs = captureLogs();
  const maker = newWallet();
  let makerToken: string;

  beforeAll(async () => {
    redis = await startTestRedis({ persistence: false });
    env = await createTestEnv({
      REDIS_URL: redis.url,
      EXCLUSIVE_FILL_TTL_SECONDS: '4',
      ORDER_SWEEP_INTERVAL_MS: '600000',
      ORDER_RECORDS_SWEEP_INTERVAL_MS: '600000',
      QUOTE_SWEEP_INTERVAL_MS: '600000',
      REDIS_EPOCH_CHECK_MS: '200',
    });
    ({ app, ctx } = buildApp(env));
    await new NetworksService(env.db).upsertNetwork(networkFile(31337));
    await new NetworksService(env.db).setSetting('bond_requirements', { USDC: { premium_bond_amount: '1', fill_bond_amount: '1' } });
    // The fixture pair with the tokens a Dutch request signs (orders need only its premium token).
    await recordFixturePair(env.db);
    const org = await ctx.services.identity.orgs.create({ kind: 'maker', name: 'Rebuild Makers', owner: randomAddress() });
    await ctx.services.identity.orgs.addMember({ organization_id: org.id, address: maker.address, role: 'member' });
    makerToken = await signIn(app, maker);
    await indexBond(env.db, maker.address, FIXTURE_USDC, 1n);
    // As bin/boot.ts does: the epoch of the process's shared client, checked on a timer.
    epoch = new RedisEpoch(env.redis, env.db, { prefix: env.config.REDIS_PREFIX, name: 'rebuild-test', logger: logs.logger, metrics: env.metrics });
    await epoch.start();
    epoch.startTimer(env.config.REDIS_EPOCH_CHECK_MS);
    lifecycle = new Lifecycle(logs.logger, 10_000);
    await startWorkers({ ...env, logger: logs.logger }, lifecycle, { concurrency: 4 });
  }, 60_000);

  afterAll(async () => {
    await lifecycle?.shutdown('test over');
    await epoch?.close();
    await env?.close();
    await redis?.close();
  });

  const state = async (table: 'orders' | 'exclusive_fills' | 'quotes', id: string) =>
    ((await env.db.query(`SELECT state FROM ${table} WHERE id = $1`, [id])) as { state: string }[])[0].state;

  it("an exclusive fill whose expiry job was flushed and a quote (the workers' expiry clock) expire at their times, an order (no job) reads expired at its own, and one line says what was rebuilt", async () => {
    const intentExpiry = Math.floor(Date.now() / 1000) + 5;
    const o = (await request(app).post('/api/orders').send(orderBody(randomAddress(), { intentExpiry })).expect(201)).body as Placed;
    await indexPlacement(env.db, o);
    const held = (await request(app).post('/api/orders').send(orderBody(randomAddress())).expect(201)).body as Placed;
    await indexPlacement(env.db, held);
    const fill = (
      await request(app)
        .post('/api/exclusive-fill')
        .set(bearer(makerToken))
        .send({ order_ids: [held.id], reward_destination: maker.address })
        .expect(201)
    ).body as { exclusive_fill_id: string };
    const quote = (
      await request(app)
        .post('/api/quote')
        .send(quoteBody(randomAddress(), STRATEGY_ROWS[0].legs, { expires_in: 5 }))
        .expect(201)
    ).body as { quote: { id: string } };

    await env.redis.flushall();
    const orderRead = async () =>
      (await request(app).get(`/api/orders/${o.id}`).expect(200)).body as { state: string; closed_at: string | null; expires_at: string };
    expect((await orderRead()).state).toBe('open');
    expect(await state('exclusive_fills', fill.exclusive_fill_id)).toBe('active');
    expect(await state('quotes', quote.quote.id)).toBe('open');

    const line = await eventually(
      async () => logs.lines().find((l) => String(l.msg).startsWith('redis data loss (epoch_missing): rebuilt from Postgres')),
      (l) => l !== undefined,
      15_000,
    );
    // The fill's expiry job only: a standard quote expires by the workers' clock over the open
    // quotes' index (no job to lose), and the two open orders have no job either.
    expect(line).toMatchObject({
      reason: 'epoch_missing',
      failed: [],
      redone: expect.objectContaining({ schedulers: expect.any(Number), requeued_expiries: 1 }),
    });

    await eventually(
      () => Promise.all([orderRead().then((r) => r.state), state('exclusive_fills', fill.exclusive_fill_id), state('quotes', quote.quote.id)]),
      (s) => s.join() === 'expired,expired,expired',
      20_000,
    );
    // Each at its own time, not before.
    const read = await orderRead();
    expect(read.closed_at).toBe(read.expires_at);
    expect(new Date(read.closed_at!).getTime()).toBe(intentExpiry * 1000);
    expect(await env.queue.queue(ORDERS_QUEUE).getJob(`order-expire.${o.id}`)).toBeUndefined();
  }, 60_000);

  it('a Dutch quote whose jobs never ran is announced and expired after the loss, within 10 s of its end', async () => {
    // Created through an API whose queue nobody consumes: its announce, award and expiry jobs are lost.
    const lostQueue = new JobQueue(env.redis, `${env.config.REDIS_PREFIX}lost:`);
    try {
      const lostApp = createApp({ ...env, queue: lostQueue }).app;
      const res = await request(lostApp)
        .post('/api/quote')
        .send(await dutchBody(newWallet(), { body: { expires_in: 6, compete_ms: 1000, exclusive_ms: 1000 } }));
      expect(res.status).toBe(201);
      const id = (res.body as { quote: { id: string } }).quote.id;
      await env.redis.flushall();

      const row = await eventually(
        async () =>
          (
            (await env.db.query(`SELECT state, announced_at, (extract(epoch FROM closed_at - expires_at) * 1000)::int AS late_ms FROM quotes WHERE id = $1`, [
              id,
            ])) as Record<string, unknown>[]
          )[0],
        (r) => r.state === 'expired',
        30_000,
      );
      expect(row.announced_at).not.toBeNull();
      expect(row.late_ms as number).toBeLessThanOrEqual(10_000);
      // Announced on the request feed in the new epoch (the competing announcement, then what followed).
      const feed = await topicEvents(env, topics.quotesRequests(31337));
      expect(feed.filter((e) => e.payload.quote_id === id).map((e) => e.event)).toContain('rfq_request');
      expect(feed.every((e) => e.seq > epoch.current!.floor)).toBe(true);
    } finally {
      await lostQueue.close();
    }
  }, 60_000);
});
