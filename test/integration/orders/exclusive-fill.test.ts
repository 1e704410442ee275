import type { Express } from 'express';
import { recoverTypedDataAddress } from 'viem';
import { DEVELOPMENT_SERVICE_SIGNER } from '../../../shared/chain/service-signer';
import { exclusiveFillTypedData, intentDataHash } from '../../../shared/protocol';
import { NetworksService } from '../../../shared/networks';
import type { ApiContext } from '../../../api/context';
import { networkFile, randomAddress } from '../../support/fixtures';
import { buildApp, request } from '../../support/http';
import { indexBond, indexFixturePair, indexPlacement, orderBody } from '../../support/orders';
import { FIXTURE_USDC } from '../../support/quotes';
import { createTestEnv, type TestEnv } from '../../support/test-env';
import { bearer, newWallet, signIn } from '../../support/wallets';

const MOTHERSHIP = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
const OTHER_PAIR = '0x9A676e781A523b5d0C0e43731313A708CB607508';
const FILL_BOND = 1000n;

describe('exclusive fills: POST /api/exclusive-fill', () => {
  let env: TestEnv;
  let app: Express;
  let ctx: ApiContext;
  const owner = newWallet();
  const maker = newWallet();
  let makerToken: string;
  let ownerToken: string;
  let orgId: string;

  async function newMaker(bond: bigint | null = FILL_BOND) {
    const w = newWallet();
    await ctx.services.identity.orgs.addMember({ organization_id: orgId, address: w.address, role: 'member' });
    if (bond !== null) await indexBond(env.db, w.address, FIXTURE_USDC, bond);
    return { wallet: w, token: await signIn(app, w) };
  }

  /** A recorded order its owner placed on chain (as indexed): exclusive fills cover placed orders only. */
  const newOrder = async (opts: Parameters<typeof orderBody>[1] = {}) => {
    const order = (await request(app).post('/api/orders').send(orderBody(owner.address, opts)).expect(201)).body;
    await indexPlacement(env.db, order);
    return order;
  };
  const take = (token: string, orderIds: string[], rewardDestination: string = maker.address) =>
    request(app).post('/api/exclusive-fill').set(bearer(token)).send({ order_ids: orderIds, reward_destination: rewardDestination });

  beforeAll(async () => {
    // Every maker of these tests is in one organization and holds many fills at once: the fade
    // limit on open rights (test/security/exclusive-rights.attack.test.ts) is not what they test.
    env = await createTestEnv({ DUTCH_FADE_LIMIT: '1000' });
    ({ app, ctx } = buildApp(env));
    const networks = new NetworksService(env.db);
    await networks.upsertNetwork(networkFile(31337, { contracts: { ...networkFile(31337).contracts, pair_usdc_weth: OTHER_PAIR } }));
    await networks.setSetting('bond_requirements', { USDC: { premium_bond_amount: '5000', fill_bond_amount: FILL_BOND.toString() } });
    await indexFixturePair(env.db);
    await indexFixturePair(env.db, 31337, OTHER_PAIR);
    const org = await ctx.services.identity.orgs.create({ kind: 'maker', name: 'Fill Makers', owner: randomAddress() });
    orgId = org.id;
    await ctx.services.identity.orgs.addMember({ organization_id: orgId, address: maker.address, role: 'member' });
    makerToken = await signIn(app, maker);
    ownerToken = await signIn(app, owner);
    // One fill bond per live fill (a bond backs one right at a time): this maker holds many.
    await indexBond(env.db, maker.address, FIXTURE_USDC, 100n * FILL_BOND);
  });
  afterAll(() => env.close());

  it('grants a bonded maker the orders, signed by the service key over what the pair verifies', async () => {
    const [a, b] = [await newOrder(), await newOrder()];
    const reward = randomAddress();
    const res = await take(makerToken, [a.id, b.id], reward).expect(201);
    const f = res.body;
    expect(f).toMatchObject({ state: 'active', maker: maker.address, order_ids: [a.id, b.id], chain_id: 31337 });
    expect(f.exclusive_fill).toMatchObject({ reward_destination: reward, intent_data_hash: intentDataHash([a.intent_hash, b.intent_hash]) });
    expect(f.fill_bond_requirements).toEqual({ USDC: { token: FIXTURE_USDC, fill_bond_amount: '1000', maker_bond: (100n * FILL_BOND).toString() } });
    expect(f.signed_message.expireTime).toBe(Math.floor(Date.parse(f.exclusive_fill.expire_time) / 1000));
    expect(f.signed_message.expireTime).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) + env.config.EXCLUSIVE_FILL_TTL_SECONDS);
    const signer = await recoverTypedDataAddress({ ...exclusiveFillTypedData(31337, MOTHERSHIP, f.signed_message), signature: f.signature });
    expect(signer).toBe(DEVELOPMENT_SERVICE_SIGNER.address);
  });

  it('bond at the boundary: exactly the minimum passes, one unit less is refused with the requirements and the bond held', async () => {
    const short = await newMaker(FILL_BOND - 1n);
    const order = await newOrder();
    const res = await take(short.token, [order.id]).expect(403);
    expect(res.body).toMatchObject({
      code: 'insufficient_fill_bond',
      fill_bond_requirements: { USDC: { token: FIXTURE_USDC, fill_bond_amount: '1000', maker_bond: '999' } },
    });
    expect(res.body.error).toContain('USDC bond 999 is below the fill bond minimum 1000');
    expect((await request(app).get(`/api/orders/${order.id}`).expect(200)).body.state).toBe('open');
    await indexBond(env.db, short.wallet.address, FIXTURE_USDC, FILL_BOND);
    await take(short.token, [order.id]).expect(201);
  });

  it('a maker with no bond at all is refused with its bond as 0', async () => {
    const none = await newMaker(null);
    const res = await take(none.token, [(await newOrder()).id]).expect(403);
    expect(res.body.fill_bond_requirements.USDC.maker_bond).toBe('0');
  });

  it('an order under an active fill is refused to everyone else with 409 naming it, and its owner cannot cancel it', async () => {
    const [a, b] = [await newOrder(), await newOrder()];
    await take(makerToken, [a.id]).expect(201);
    const rival = await newMaker();
    const res = await take(rival.token, [b.id, a.id]).expect(409);
    expect(res.body).toMatchObject({ code: 'order_under_exclusive_fill', error: `order ${a.id} is under another active exclusive fill` });
    // Nothing of the refused request stuck: b is still free.
    await take(rival.token, [b.id]).expect(201);
    // The owner's cancel is recorded at once and waits for the fill to end (issue #38).
    const cancel = await request(app).post(`/api/orders/${a.id}/cancel`).set(bearer(ownerToken)).expect(200);
    expect(cancel.body).toMatchObject({ state: 'open', cancel_pending: true });
  });

  it('refuses orders that are not open, unknown, on two CLOBs, or named twice', async () => {
    const cancelled = await newOrder();
    await request(app).post(`/api/orders/${cancelled.id}/cancel`).set(bearer(ownerToken)).expect(200);
    const notOpen = await take(makerToken, [cancelled.id]).expect(409);
    expect(notOpen.body).toMatchObject({ code: 'order_not_open', error: `order ${cancelled.id} is cancelled; only open orders can be filled` });

    const unknown = '6b1d9f0e-0000-4000-8000-000000000000';
    expect((await take(makerToken, [unknown]).expect(404)).body).toMatchObject({ code: 'order_not_found', error: `order ${unknown} not found` });

    const [here, there] = [await newOrder(), await newOrder({ pair: OTHER_PAIR })];
    const mixed = await take(makerToken, [here.id, there.id]).expect(400);
    expect(mixed.body.details[0]).toMatchObject({ path: 'order_ids' });
    expect(mixed.body.details[0].message).toContain('one fill covers orders of one chain and CLOB');

    const twice = await take(makerToken, [here.id, here.id]).expect(400);
    expect(twice.body.details[0]).toEqual({ path: 'order_ids', message: 'must not name an order twice' });
  });

  it.each([
    ['no order ids', { order_ids: [], reward_destination: randomAddress() }, 'order_ids'],
    ['an order id that is no uuid', { order_ids: ['x'], reward_destination: randomAddress() }, 'order_ids[0]'],
    ['a bad reward destination', { order_ids: ['6b1d9f0e-0000-4000-8000-000000000000'], reward_destination: 'me' }, 'reward_destination'],
    ['no reward destination', { order_ids: ['6b1d9f0e-0000-4000-8000-000000000000'] }, 'reward_destination'],
    ['an unknown field', { order_ids: ['6b1d9f0e-0000-4000-8000-000000000000'], reward_destination: randomAddress(), tip: 1 }, 'tip'],
  ])('400 naming the field: %s', async (_name, body, path) => {
    const res = await request(app).post('/api/exclusive-fill').set(bearer(makerToken)).send(body).expect(400);
    expect(res.body.details.map((d: { path: string }) => d.path)).toContain(path);
  });

  it('more orders than EXCLUSIVE_FILL_MAX_ORDERS is a 400', async () => {
    const ids = Array.from({ length: env.config.EXCLUSIVE_FILL_MAX_ORDERS + 1 }, (_, i) => `6b1d9f0e-0000-4000-8000-${i.toString().padStart(12, '0')}`);
    const res = await take(makerToken, ids).expect(400);
    expect(res.body.details[0].path).toBe('order_ids');
  });

  it('503 when the chain has no mothership to sign for', async () => {
    await new NetworksService(env.db).upsertNetwork(networkFile(31338, { contracts: { opshuns_core: networkFile().contracts.opshuns_core } }));
    await indexFixturePair(env.db, 31338);
    const o = (
      await request(app)
        .post('/api/orders')
        .send(orderBody(owner.address, { chainId: 31338 }))
        .expect(201)
    ).body;
    await indexPlacement(env.db, o);
    const res = await take(makerToken, [o.id]).expect(503);
    expect(res.body).toMatchObject({ code: 'network_unavailable', error: 'chain 31338 has no mothership configured' });
  });

  it('needs maker rights: 401 without a bearer, 403 for a wallet outside maker organizations', async () => {
    const order = await newOrder();
    expect(
      (
        await request(app)
          .post('/api/exclusive-fill')
          .send({ order_ids: [order.id], reward_destination: maker.address })
          .expect(401)
      ).body.code,
    ).toBe('maker_rights_required');
    expect((await take(ownerToken, [order.id]).expect(403)).body.code).toBe('maker_rights_required');
  });

  // The race is the API's: bonds and placements here are the indexed rows the API reads (the
  // chain -> indexer path of a deposit is test/security/bonds.attack.test.ts's).
  it('100 concurrent requests over overlapping orders: at most one active fill per order, each held by the fill that won it, every refusal a 409 naming an order it asked for', async () => {
    const orders = await Promise.all(Array.from({ length: 20 }, () => newOrder()));
    // Each maker sends five at once: a bond for five live fills, so only the race over orders decides.
    const makers = await Promise.all(Array.from({ length: 20 }, () => newMaker(5n * FILL_BOND)));
    const sets = Array.from({ length: 100 }, (_, i) => [orders[i % 20].id, orders[(i * 7 + 3) % 20].id].filter((v, j, a) => a.indexOf(v) === j));
    const answers = await Promise.all(sets.map((set, i) => take(makers[i % 20].token, set)));
    const won = answers.filter((r) => r.status === 201);
    const lost = answers.filter((r) => r.status !== 201);
    expect(lost.filter((r) => r.status !== 409 || r.body.code !== 'order_under_exclusive_fill').map((r) => [r.status, r.body])).toEqual([]);
    lost.forEach((r) => {
      const named = /order ([0-9a-f-]{36})/.exec(r.body.error)?.[1];
      expect(sets[answers.indexOf(r)]).toContain(named);
    });
    const covered = won.flatMap((r) => r.body.order_ids as string[]);
    expect(new Set(covered).size).toBe(covered.length);
    const holders: { id: string; n: number }[] = await env.db.query(
      `SELECT o.id, count(f.id)::int AS n FROM orders o LEFT JOIN exclusive_fills f ON o.id = ANY(f.order_ids) AND f.state = 'active'
        WHERE o.id = ANY($1::uuid[]) GROUP BY o.id`,
      [orders.map((o) => o.id)],
    );
    expect(holders.every((h) => h.n <= 1)).toBe(true);
    // Every order one of the requests asked for is held by exactly the fill that won it.
    for (const r of won) {
      const rows: { exclusive_fill_id: string }[] = await env.db.query(`SELECT exclusive_fill_id FROM orders WHERE id = ANY($1::uuid[])`, [r.body.order_ids]);
      expect(rows.every((x) => x.exclusive_fill_id === r.body.exclusive_fill_id)).toBe(true);
    }
    expect(won.length).toBeGreaterThan(0);
  });
});
