import type { Express } from 'express';
import { createApp } from '../../../api/app';
import type { ApiContext } from '../../../api/context';
import { topics } from '../../../shared/events';
import { expireExclusiveFill, expireOrder } from '../../../shared/orders';
import { JobQueue } from '../../../shared/platform/queue';
import { NetworksService } from '../../../shared/networks';
import { scheduleOrderJobs } from '../../../workers';
import { eventually, topicEvents } from '../../support/events';
import { networkFile, randomAddress } from '../../support/fixtures';
import { buildApp, request } from '../../support/http';
import { indexBond, indexFixturePair, indexPlacement, orderBody } from '../../support/orders';
import { FIXTURE_USDC } from '../../support/quotes';
import { createTestEnv, type TestEnv } from '../../support/test-env';
import { bearer, newWallet, signIn } from '../../support/wallets';
import { workerReplicas } from '../../support/workers';
import { captureLogs } from './log-capture';

/**
 * Orders expire at their time (read so from that instant; the sweepers write it down, no job per
 * order) and exclusive fills at expire_time, once each, with two worker replicas running.
 */
describe('order and exclusive-fill expiry, two worker replicas', () => {
  let env: TestEnv;
  let app: Express;
  let ctx: ApiContext;
  let lostJobsApp: Express;
  let lostQueue: JobQueue;
  const logs = captureLogs();
  const replicas = workerReplicas(() => env, { logger: logs.logger });
  const maker = newWallet();
  let makerToken: string;

  /** A recorded order its owner placed on chain (as indexed): exclusive fills cover placed orders only. */
  const order = async (target: Express, intentExpiry?: number) => {
    const o = (await request(target).post('/api/orders').send(orderBody(randomAddress(), { intentExpiry })).expect(201)).body;
    await indexPlacement(env.db, o);
    return o as { id: string };
  };
  const orderRow = async (id: string) => (await env.db.query(`SELECT state, exclusive_fill_id, closed_at FROM orders WHERE id = $1`, [id]))[0];
  const fillState = async (id: string) => (await env.db.query(`SELECT state FROM exclusive_fills WHERE id = $1`, [id]))[0].state;

  beforeAll(async () => {
    env = await createTestEnv({ EXCLUSIVE_FILL_TTL_SECONDS: '1', ORDER_SWEEP_INTERVAL_MS: '200', ORDER_RECORDS_SWEEP_INTERVAL_MS: '200' });
    ({ app, ctx } = buildApp(env));
    lostQueue = new JobQueue(env.redis, `${env.config.REDIS_PREFIX}lost:`);
    lostJobsApp = createApp({ ...env, queue: lostQueue }).app;
    await new NetworksService(env.db).upsertNetwork(networkFile(31337));
    await new NetworksService(env.db).setSetting('bond_requirements', { USDC: { premium_bond_amount: '1', fill_bond_amount: '1' } });
    await indexFixturePair(env.db);
    const org = await ctx.services.identity.orgs.create({ kind: 'maker', name: 'Expiry Makers', owner: randomAddress() });
    await ctx.services.identity.orgs.addMember({ organization_id: org.id, address: maker.address, role: 'member' });
    makerToken = await signIn(app, maker);
    await indexBond(env.db, maker.address, FIXTURE_USDC, 1n);
    for (let i = 0; i < 2; i++) replicas.start();
    await scheduleOrderJobs(env.queue, env.config);
  });
  afterAll(async () => {
    await replicas.closeAll(true);
    await lostQueue.close();
    await env.close();
  });

  it('an order expires at intentExpiry, written down once by the sweepers of two replicas, and can then be neither filled nor cancelled', async () => {
    // Every write of the order's state is recorded, with the database's clock, so "once" is observed rather than inferred.
    await env.db.query(`CREATE TABLE test_order_state_writes (id uuid, old_state text, new_state text, at timestamptz)`);
    await env.db.query(`
      CREATE FUNCTION test_log_order_state() RETURNS trigger AS $$
      BEGIN INSERT INTO test_order_state_writes VALUES (NEW.id, OLD.state, NEW.state, clock_timestamp()); RETURN NEW; END $$ LANGUAGE plpgsql`);
    await env.db.query(`CREATE TRIGGER test_order_state_writes AFTER UPDATE OF state ON orders FOR EACH ROW EXECUTE FUNCTION test_log_order_state()`);
    const { id } = await order(app, Math.floor(Date.now() / 1000) + 2);
    // No job per order: clients read it expired from its time on, and the sweepers write that down.
    const read = await eventually(
      async () => (await request(app).get(`/api/orders/${id}`).expect(200)).body,
      (o) => o.state === 'expired',
      15_000,
    );
    expect(read.closed_at).toBe(read.expires_at);
    const row = await eventually(
      () => orderRow(id),
      (r) => r.state === 'expired',
      15_000,
    );
    expect(new Date(row.closed_at).toISOString()).toBe(read.expires_at);
    const writes: { old_state: string; new_state: string; at: Date }[] = await env.db.query(
      `SELECT old_state, new_state, at FROM test_order_state_writes WHERE id = $1`,
      [id],
    );
    expect(writes.map((w) => [w.old_state, w.new_state])).toEqual([['open', 'expired']]);
    expect(new Date(writes[0].at).getTime()).toBeGreaterThanOrEqual(new Date(read.expires_at).getTime());
    // Applying the transition again changes nothing.
    expect(await expireOrder(env.db, id)).toBe(false);
    expect(await orderRow(id)).toEqual(row);
    const fill = await request(app)
      .post('/api/exclusive-fill')
      .set(bearer(makerToken))
      .send({ order_ids: [id], reward_destination: maker.address })
      .expect(409);
    expect(fill.body).toMatchObject({ code: 'order_not_open', error: `order ${id} is expired; only open orders can be filled` });
  });

  it('a fill expires at expire_time: its orders are released and its maker hears issued then expired, once each', async () => {
    const a = await order(app);
    const fill = (
      await request(app)
        .post('/api/exclusive-fill')
        .set(bearer(makerToken))
        .send({ order_ids: [a.id], reward_destination: maker.address })
        .expect(201)
    ).body;
    // The fill lives 1 s: that it held the order is read from its answer, not raced against its
    // expiry (the hold itself: "an order under an active fill is refused..." in exclusive-fill.test.ts).
    expect(fill.order_ids).toEqual([a.id]);
    await eventually(
      () => fillState(fill.exclusive_fill_id),
      (s) => s === 'expired',
      15_000,
    );
    expect(await orderRow(a.id)).toMatchObject({ state: 'open', exclusive_fill_id: null });
    expect(await expireExclusiveFill(env.db, fill.exclusive_fill_id)).toBe(false);
    const heard = await eventually(
      () => topicEvents(env, topics.rfqMaker(maker.address)),
      (e) => e.some((x) => x.event === 'exclusive_fill_expired' && x.payload.exclusive_fill_id === fill.exclusive_fill_id),
    );
    const mine = heard.filter((e) => e.payload.exclusive_fill_id === fill.exclusive_fill_id);
    expect(mine.map((e) => [e.event, e.payload.state])).toEqual([
      ['exclusive_fill_issued', 'active'],
      ['exclusive_fill_expired', 'expired'],
    ]);
    // Released, but not to the maker that let its fill expire unused: that was a fade, and it may
    // not take a fill over the same order again for EXCLUSIVE_FILL_RETAKE_COOLDOWN (docs/ORDERS.md).
    const retake = await request(app)
      .post('/api/exclusive-fill')
      .set(bearer(makerToken))
      .send({ order_ids: [a.id], reward_destination: maker.address });
    expect({ status: retake.status, code: retake.body.code }).toEqual({ status: 403, code: 'exclusive_fill_retake_cooldown' });
  });

  it("when the fill's jobs were lost, the sweepers expire the fill and the order and tell the maker", async () => {
    const o = await order(lostJobsApp, Math.floor(Date.now() / 1000) + 4);
    const fill = (
      await request(lostJobsApp)
        .post('/api/exclusive-fill')
        .set(bearer(makerToken))
        .send({ order_ids: [o.id], reward_destination: maker.address })
        .expect(201)
    ).body;
    await eventually(
      () => fillState(fill.exclusive_fill_id),
      (s) => s === 'expired',
      15_000,
    );
    await eventually(
      () => orderRow(o.id),
      (r) => r.state === 'expired',
      15_000,
    );
    expect((await orderRow(o.id)).state).toBe('expired');
    const heard = await eventually(
      () => topicEvents(env, topics.rfqMaker(maker.address)),
      (e) => e.filter((x) => x.payload.exclusive_fill_id === fill.exclusive_fill_id).length === 2,
      15_000,
    );
    expect(heard.filter((e) => e.payload.exclusive_fill_id === fill.exclusive_fill_id).map((e) => e.event)).toEqual([
      'exclusive_fill_issued',
      'exclusive_fill_expired',
    ]);
  });
});
