import type { Address, Hex } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { bondVaultAbi, mockErc20Abi, optionPairAbi } from '../../shared/chain/abis';
import { orderIntentFromJson } from '../../shared/protocol';
import { openHarness, runIndexer, waitFor, type Harness } from '../integration/indexer/harness';
import { buildApp, request } from '../support/http';
import { orderBody } from '../support/orders';
import { bearer, newWallet, signIn } from '../support/wallets';

/**
 * Issue #23, findings 3 and 4, attacked the way an attacker would: a Hardhat node with the
 * project's contracts, the indexer tailing it, and the API over HTTP.
 *
 * - A taker integrator mints a delegate for any wallet it names; before the fix that delegate
 *   cancelled the wallet's orders.
 * - Anyone may record an order for any `destination.from`; before the fix the record reserved the
 *   owner's (prefix, nonce) for good, so the owner's own order got 409 and the fakes were listed
 *   as the owner's, with expiries as far as the year 36812.
 * - An exclusive fill was issued over a record nobody placed, which blocked the owner's cancel.
 */
const FILL_BOND = 1_000_000n;
const VICTIM = 4;
const MAKER = 5;
const UINT40_MAX = 1099511627775;
const EXPLORE_LIMIT = 4;
const ORIGIN = 'http://localhost:3000';

let h: Harness;
let ix: Awaited<ReturnType<typeof runIndexer>>;
let app: ReturnType<typeof buildApp>['app'];
let victimToken: string;
let makerToken: string;
let attackerDelegate: string;
const victim = () => h.chain.accounts[VICTIM].address;
const pair = () => h.chain.addresses.pair;
const usdc = () => h.chain.addresses.usdc;

const send = (from: number, address: Address, abi: readonly unknown[], functionName: string, args: readonly unknown[]): Promise<Hex> =>
  h.chain.send(from, address, abi, functionName, args);

const getOrder = async (id: string) => (await request(app).get(`/api/orders/${id}`).expect(200)).body;
const ownerList = async (owner: string) => (await request(app).get('/api/orders').query({ owner, limit: '500' }).expect(200)).body.items as { id: string }[];
const body = async (opts: Parameters<typeof orderBody>[1] = {}) => orderBody(victim(), { pair: pair(), now: await h.chain.now(), ...opts });

beforeAll(async () => {
  h = await openHarness({ EXPLORE_RATE_LIMIT: String(EXPLORE_LIMIT), CORS_ORIGINS: ORIGIN, TRUST_PROXY_HOPS: '1' });
  await h.register();
  await h.networks.setSetting('bond_requirements', { USDC: { premium_bond_amount: '1', fill_bond_amount: FILL_BOND.toString() } });
  let ctx;
  ({ app, ctx } = buildApp(h.env));

  victimToken = await signIn(app, h.chain.accounts[VICTIM] as unknown as PrivateKeyAccount);

  // A bonded maker, member of a maker organization.
  const makers = await ctx.services.identity.orgs.create({ kind: 'maker', name: 'Attack Makers', owner: h.chain.accounts[8].address });
  await ctx.services.identity.orgs.addMember({ organization_id: makers.id, address: h.chain.accounts[MAKER].address, role: 'member' });
  makerToken = await signIn(app, h.chain.accounts[MAKER] as unknown as PrivateKeyAccount);

  // An unrelated taker organization: its admin makes a key, its backend mints a delegate naming the victim's wallet.
  const takerAdmin = newWallet();
  await ctx.services.identity.orgs.create({ kind: 'taker', name: 'Unrelated Integrator', owner: takerAdmin.address });
  const adminToken = await signIn(app, takerAdmin);
  const key = (await request(app).post('/api/taker/keys').set(bearer(adminToken)).send({ name: 'attacker backend' }).expect(201)).body;
  attackerDelegate = (await request(app).post('/api/taker/delegate').set(bearer(key.secret)).send({ address: victim(), expires_in: 3600 }).expect(200)).body
    .token;

  ix = await runIndexer(h.env);
  await send(MAKER, usdc(), mockErc20Abi, 'faucet', []);
  await send(MAKER, usdc(), mockErc20Abi, 'approve', [h.chain.addresses.bondVault, FILL_BOND]);
  await send(MAKER, h.chain.addresses.bondVault, bondVaultAbi, 'deposit', [usdc(), FILL_BOND]);
  await waitFor(
    'bond indexed',
    async () => (await h.env.db.query(`SELECT count(*)::int AS n FROM indexer_bond_events WHERE maker = $1`, [h.chain.accounts[MAKER].address]))[0].n,
    (n) => n > 0,
  );
}, 240_000);

afterAll(async () => {
  await ix?.stop();
  await h?.close();
});

describe("attack: a taker integrator's delegate cancels someone else's order", () => {
  it("an unrelated taker org's delegate for the victim's wallet is refused and the order stays open; the owner's own session cancels", async () => {
    const order = (
      await request(app)
        .post('/api/orders')
        .set(bearer(victimToken))
        .send(await body())
        .expect(201)
    ).body;

    // The delegate speaks for the victim's address as far as GET /api/me goes...
    expect((await request(app).get('/api/me').set(bearer(attackerDelegate)).expect(200)).body).toMatchObject({ credential: 'delegate', address: victim() });
    // ...but it is no proof the wallet consented: cancelling is refused.
    const refused = await request(app).post(`/api/orders/${order.id}/cancel`).set(bearer(attackerDelegate)).expect(403);
    expect(refused.body.code).toBe('wallet_session_required');
    expect(await getOrder(order.id)).toMatchObject({ state: 'open', closed_at: null });

    const cancelled = await request(app).post(`/api/orders/${order.id}/cancel`).set(bearer(victimToken)).expect(200);
    expect(cancelled.body).toMatchObject({ id: order.id, state: 'cancelled' });
  });

  it("the delegate spends its own Explore budget, never the victim wallet's", async () => {
    let ip = 0;
    const summary = () => request(app).get(`/api/clob/${pair()}/summary`).set('X-Forwarded-For', `198.51.100.${++ip}`);
    // The attacker burns its delegate's whole budget, each request from a new IP...
    for (let i = 0; i < EXPLORE_LIMIT; i++) expect((await summary().set(bearer(attackerDelegate))).status).toBe(200);
    expect((await summary().set(bearer(attackerDelegate))).status).toBe(429);
    // ...and the victim's own session still has all of its own (before the fix: 429, the delegate had spent the wallet's bucket).
    for (let i = 0; i < EXPLORE_LIMIT; i++) expect((await summary().set({ ...bearer(victimToken), Origin: ORIGIN })).status).toBe(200);
  });
});

describe("attack: squatting a wallet's order nonce without credentials", () => {
  it("the fakes reserve nothing: the victim's own order is accepted, only it is listed, the fakes read unconfirmed, and placing it on chain makes it the real one", async () => {
    const mine = await body();
    const { nonce } = mine.destination;
    // The attacker, with no bearer at all, records several orders in the victim's name on the victim's nonce.
    const fakes: string[] = [];
    for (const amount of ['1', '7', '999999999999999999999']) {
      const fake = { ...mine, amount, data: { ...mine.data, decayMinFill: { startMinFill: '0', decayRatePerSecond: '0' } } };
      fakes.push((await request(app).post('/api/orders').send(fake).expect(201)).body.id);
    }

    // The victim's own order, same (prefix, nonce): accepted (before the fix: 409 order_nonce_used).
    const real = (await request(app).post('/api/orders').set(bearer(victimToken)).send(mine).expect(201)).body;
    expect(real).toMatchObject({ destination: { nonce }, placement: 'recorded_by_owner', confirmed: true });

    // The victim's list holds its own order and none of the fakes; each fake is visible by id, marked unconfirmed.
    const listed = (await ownerList(victim())).map((o) => o.id);
    expect(listed).toContain(real.id);
    expect(listed.filter((id) => fakes.includes(id))).toEqual([]);
    for (const id of fakes) expect(await getOrder(id)).toMatchObject({ owner_address: victim(), placement: 'unconfirmed', confirmed: false, on_chain: null });

    // The victim places its order on chain: the placement decides which record is real.
    await send(VICTIM, pair(), optionPairAbi, 'placeIntent', [orderIntentFromJson(real)]);
    const placed = await waitFor(
      'placement indexed',
      () => getOrder(real.id),
      (o) => o.on_chain !== null,
    );
    expect(placed).toMatchObject({ placement: 'placed', confirmed: true, state: 'open' });
    for (const id of fakes) expect(await getOrder(id)).toMatchObject({ placement: 'unconfirmed', on_chain: null });
    expect((await ownerList(victim())).map((o) => o.id).filter((id) => fakes.includes(id))).toEqual([]);
    // The portfolio's open orders come from the chain: the placed order, never a fake.
    const snap = (await request(app).get(`/api/portfolio/${victim()}`).expect(200)).body.networks[0];
    expect(snap.open_orders.map((o: { order_id: string }) => o.order_id)).toContain(placed.on_chain.pair_order_id);
  });

  it('a far-future intentExpiry (the year 36812) is a 400 naming the field, and nothing is recorded', async () => {
    const b = await body();
    const far = { ...b, data: { ...b.data, intentExpiry: UINT40_MAX, pairKey: { ...b.data.pairKey, expiryTimestamp: UINT40_MAX } } };
    const before = (await h.env.db.query(`SELECT count(*)::int AS n FROM orders`))[0].n;
    const res = await request(app).post('/api/orders').send(far).expect(400);
    expect(res.body.code).toBe('validation_failed');
    const paths = (res.body.details as { path: string; message: string }[]).filter((d) => d.message.includes('ORDER_MAX_HORIZON_SECONDS')).map((d) => d.path);
    expect(paths).toEqual(expect.arrayContaining(['data.intentExpiry', 'data.pairKey.expiryTimestamp']));
    expect((await h.env.db.query(`SELECT count(*)::int AS n FROM orders`))[0].n).toBe(before);
  });
});

describe('attack: an exclusive fill over a record nobody placed', () => {
  it("is refused naming the order, so it cannot block the owner's cancel; once placed, the order can be filled", async () => {
    const squat = (
      await request(app)
        .post('/api/orders')
        .send(await body())
        .expect(201)
    ).body;
    const own = (
      await request(app)
        .post('/api/orders')
        .set(bearer(victimToken))
        .send(await body())
        .expect(201)
    ).body;
    for (const o of [squat, own]) {
      const res = await request(app)
        .post('/api/exclusive-fill')
        .set(bearer(makerToken))
        .send({ order_ids: [o.id], reward_destination: h.chain.accounts[MAKER].address })
        .expect(409);
      expect(res.body.code).toBe('order_not_placed');
      expect(res.body.error).toContain(`order ${o.id} is not placed on chain`);
    }
    const fills = await h.env.db.query(`SELECT id FROM exclusive_fills WHERE $1 = ANY(order_ids) OR $2 = ANY(order_ids)`, [squat.id, own.id]);
    expect(fills).toEqual([]);
    // Nothing holds the owner's order: its cancel goes through.
    await request(app).post(`/api/orders/${own.id}/cancel`).set(bearer(victimToken)).expect(200);

    const placedBody = await body();
    const placed = (await request(app).post('/api/orders').set(bearer(victimToken)).send(placedBody).expect(201)).body;
    await send(VICTIM, pair(), optionPairAbi, 'placeIntent', [orderIntentFromJson(placed)]);
    await waitFor(
      'placement indexed',
      () => getOrder(placed.id),
      (o) => o.on_chain !== null,
    );
    await request(app)
      .post('/api/exclusive-fill')
      .set(bearer(makerToken))
      .send({ order_ids: [placed.id], reward_destination: h.chain.accounts[MAKER].address })
      .expect(201);
  });
});
