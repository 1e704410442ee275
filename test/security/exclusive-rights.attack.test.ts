import type { Address, Hex } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { bondVaultAbi, mockErc20Abi, optionPairAbi } from '../../shared/chain/abis';
import { orderIntentFromJson } from '../../shared/protocol';
import { openHarness, runIndexer, waitFor, type Harness } from '../integration/indexer/harness';
import { chainDutchBody } from '../support/dutch';
import { buildApp, request } from '../support/http';
import { orderBody } from '../support/orders';
import { startWorkers, type Workers } from '../support/workers';
import { bearer, newWallet, signIn } from '../support/wallets';

/**
 * Issue #38, "exclusive rights that cannot be hoarded", attacked on a real stack (Hardhat with
 * the reference contracts, the indexer, the workers expiring fills, the API over HTTP):
 *
 * - a maker took an exclusive fill over a victim's placed order, let it expire and took it again
 *   the moment it expired, forever, while the owner's cancel answered 409;
 * - one bot with one bond bid on four auctions at once: all four awarded to it, four fades
 *   against a limit of three, and the block came after every window had passed.
 */
const FILL_BOND = 1_000_000n;
const VICTIM = 4;
const HOARDER = 5;
const OTHER = 6;
const BIDDER = 7;

let h: Harness;
let ix: Awaited<ReturnType<typeof runIndexer>>;
let workers: Workers;
let app: ReturnType<typeof buildApp>['app'];
let ctx: ReturnType<typeof buildApp>['ctx'];
const tokens: Record<number, string> = {};
const victim = () => h.chain.accounts[VICTIM].address;
const pair = () => h.chain.addresses.pair;
const usdc = () => h.chain.addresses.usdc;
const send = (from: number, address: Address, abi: readonly unknown[], functionName: string, args: readonly unknown[]): Promise<Hex> =>
  h.chain.send(from, address, abi, functionName, args);
const getOrder = async (id: string) => (await request(app).get(`/api/orders/${id}`).expect(200)).body;

/** Deposits `amount` USDC of account `i` into the BondVault and waits until the indexer has it. */
async function bond(i: number, amount: bigint): Promise<void> {
  const before = (await h.env.db.query(`SELECT count(*)::int AS n FROM indexer_bond_events WHERE maker = $1`, [h.chain.accounts[i].address]))[0].n;
  await send(i, usdc(), mockErc20Abi, 'faucet', []);
  await send(i, usdc(), mockErc20Abi, 'approve', [h.chain.addresses.bondVault, amount]);
  await send(i, h.chain.addresses.bondVault, bondVaultAbi, 'deposit', [usdc(), amount]);
  await waitFor(
    'bond indexed',
    async () => (await h.env.db.query(`SELECT count(*)::int AS n FROM indexer_bond_events WHERE maker = $1`, [h.chain.accounts[i].address]))[0].n,
    (n) => n > before,
  );
}

/** A maker organization of its own with account `i` as its member, signed in. */
async function maker(i: number, name: string): Promise<void> {
  const org = await ctx.services.identity.orgs.create({ kind: 'maker', name: `${name} ${Date.now()}`, owner: newWallet().address });
  await ctx.services.identity.orgs.addMember({ organization_id: org.id, address: h.chain.accounts[i].address, role: 'member' });
  tokens[i] = await signIn(app, h.chain.accounts[i] as unknown as PrivateKeyAccount);
}

/** The victim's order, recorded with its own session and placed on chain. */
async function placedOrder(): Promise<string> {
  const body = orderBody(victim(), { pair: pair(), now: await h.chain.now() });
  const o = (await request(app).post('/api/orders').set(bearer(tokens[VICTIM])).send(body).expect(201)).body;
  await send(VICTIM, pair(), optionPairAbi, 'placeIntent', [orderIntentFromJson(o)]);
  await waitFor(
    'placement indexed',
    () => getOrder(o.id),
    (x) => x.on_chain !== null,
  );
  return o.id as string;
}

const takeFill = (i: number, ids: string[]) =>
  request(app).post('/api/exclusive-fill').set(bearer(tokens[i])).send({ order_ids: ids, reward_destination: h.chain.accounts[i].address });

beforeAll(async () => {
  h = await openHarness({ EXCLUSIVE_FILL_TTL_SECONDS: '2', EXCLUSIVE_FILL_RETAKE_COOLDOWN: '3600', DUTCH_FADE_LIMIT: '3', LOGIN_RATE_LIMIT: '1000' });
  await h.register({ confirmations: 0 });
  await h.networks.setSetting('bond_requirements', { USDC: { premium_bond_amount: '1', fill_bond_amount: FILL_BOND.toString() } });
  ({ app, ctx } = buildApp(h.env));
  tokens[VICTIM] = await signIn(app, h.chain.accounts[VICTIM] as unknown as PrivateKeyAccount);
  await maker(HOARDER, 'Hoarders');
  await maker(OTHER, 'Other makers');
  await maker(BIDDER, 'One-bond bidders');
  ix = await runIndexer(h.env);
  workers = startWorkers(h.env);
  await bond(HOARDER, FILL_BOND);
  await bond(OTHER, FILL_BOND);
  await bond(BIDDER, FILL_BOND);
}, 240_000);

afterAll(async () => {
  await workers?.close();
  await ix?.stop();
  await h?.close();
});

describe('attack: hoarding exclusive rights', () => {
  it("the owner's cancel during a live fill is recorded at once and applied when the fill ends; an unused fill is its maker's fade and cannot be retaken", async () => {
    const [cancelled, kept] = [await placedOrder(), await placedOrder()];
    const fill = await takeFill(HOARDER, [cancelled, kept]).expect(201);

    // The owner cancels while the fill holds the order: 200, pending, and nobody gets a new fill over it.
    const pending = await request(app).post(`/api/orders/${cancelled}/cancel`).set(bearer(tokens[VICTIM])).expect(200);
    expect(pending.body).toMatchObject({ id: cancelled, state: 'open', cancel_pending: true });
    expect((await takeFill(OTHER, [cancelled]).expect(409)).body.code).toBe('order_cancel_pending');

    // The fill expires unused: the pending cancel takes effect, the other order is free again.
    await waitFor(
      'the fill expired',
      async () => (await h.env.db.query(`SELECT state FROM exclusive_fills WHERE id = $1`, [fill.body.exclusive_fill_id]))[0].state,
      (s) => s === 'expired',
      30_000,
    );
    expect(await getOrder(cancelled)).toMatchObject({ state: 'cancelled' });
    expect((await getOrder(kept)).cancel_pending).toBeUndefined();

    // The no-show is a fade of the hoarder's organization, on the Dutch counter.
    const me = await request(app).get('/api/me').set(bearer(tokens[HOARDER])).expect(200);
    expect(me.body.dutch_fades).toMatchObject({ count: 1, limit: 3 });

    // The hoarder cannot take the order again at once; another maker can.
    const retake = await takeFill(HOARDER, [kept]).expect(403);
    expect(retake.body).toMatchObject({ code: 'exclusive_fill_retake_cooldown', details: [{ path: 'order_ids' }] });
    expect(Number(retake.headers['retry-after'])).toBeGreaterThan(3000);
    await takeFill(OTHER, [kept]).expect(201);
  }, 120_000);

  it('one bond backs one live right, and open rights count toward the fade limit before they can fade', async () => {
    const auction = async () =>
      (
        await request(app)
          .post('/api/quote')
          .send(await chainDutchBody(h.chain, newWallet(), { body: { compete_ms: 120_000 } }))
          .expect(201)
      ).body.quote.id as string;
    const bid = (id: string) => request(app).post(`/api/quote/${id}/offer`).set(bearer(tokens[BIDDER])).send({ buy_override_bps: 1, sell_override_bps: 1 });
    const ids = [await auction(), await auction(), await auction(), await auction()];

    await bid(ids[0]).expect(201);
    // The same bid replaced on the same auction is the same right.
    await bid(ids[0]).expect(201);
    const second = await bid(ids[1]).expect(403);
    expect(second.body.code).toBe('insufficient_fill_bond');
    expect(second.body.error).toContain('reserved by 1 live exclusive right');
    expect(second.body.fill_bond_requirements.USDC).toMatchObject({ fill_bond_amount: FILL_BOND.toString(), maker_bond: '0' });

    // With a bond for four rights, the fade limit (3) still stops the fourth: every open right may fade.
    await bond(BIDDER, 3n * FILL_BOND);
    await bid(ids[1]).expect(201);
    await bid(ids[2]).expect(201);
    const fourth = await bid(ids[3]).expect(403);
    expect(fourth.body).toMatchObject({ code: 'fade_limit_reserved', fade_limit: { fades: 0, open_rights: 3, limit: 3 } });
    expect((await h.env.db.query(`SELECT count(*)::int AS n FROM dutch_bids WHERE quote_id = ANY($1::uuid[])`, [ids]))[0].n).toBe(3);
  }, 120_000);
});
