import { privateKeyToAccount, generatePrivateKey, type PrivateKeyAccount } from 'viem/accounts';
import type { Address, Hex } from 'viem';
import { bondVaultAbi, mockErc20Abi, optionPairAbi } from '../../../shared/chain/abis';
import { topics } from '../../../shared/events';
import { exclusiveFillTypedData, orderIntentFromJson, type ExclusiveFill, type OrderIntent } from '../../../shared/protocol';
import { scheduleOrderJobs } from '../../../workers';
import { revertName } from '../chain/reverts';
import { mineBlocks, openHarness, runIndexer, waitFor, waitForHead, type Harness } from '../indexer/harness';
import { eventually, topicEvents } from '../../support/events';
import { buildApp, request } from '../../support/http';
import { orderBody } from '../../support/orders';
import { bearer, signIn } from '../../support/wallets';
import { startWorkers, type Workers } from '../../support/workers';

/**
 * The whole order flow on a real Hardhat node with the indexer and workers running: the owner
 * places its recorded order (placeIntent), a bonded maker takes an exclusive fill and fills on
 * chain with the API's signature, the indexer marks the fill used and the order filled, and a
 * reorg undoes that and a bond deposit.
 */
const FILL_BOND = 1_000_000n;
const REWARD = 100n;
let h: Harness;
let ix: Awaited<ReturnType<typeof runIndexer>>;
let workers: Workers;
let app: ReturnType<typeof buildApp>['app'];
let makerToken: string;
const OWNER = 3;
const MAKER = 5;
const owner = () => h.chain.accounts[OWNER].address;
const maker = () => h.chain.accounts[MAKER].address;
const pair = () => h.chain.addresses.pair;
const usdc = () => h.chain.addresses.usdc;

const send = (from: number, address: Address, abi: readonly unknown[], functionName: string, args: readonly unknown[]): Promise<Hex> =>
  h.chain.send(from, address, abi, functionName, args);

const simulate = (from: number, functionName: string, args: readonly unknown[]) =>
  h.chain.publicClient.simulateContract({ account: h.chain.accounts[from], address: pair(), abi: optionPairAbi, functionName, args } as never);

const bondOf = async (who: Address) => {
  const rows: { balance: string }[] = await h.env.db.query(
    `SELECT balance::text FROM indexer_bond_events WHERE maker = $1 AND token = $2 ORDER BY block_number DESC, log_index DESC LIMIT 1`,
    [who, usdc()],
  );
  return rows[0]?.balance ?? '0';
};

async function deposit(from: number, amount: bigint): Promise<void> {
  await send(from, usdc(), mockErc20Abi, 'faucet', []);
  await send(from, usdc(), mockErc20Abi, 'approve', [h.chain.addresses.bondVault, amount]);
  await send(from, h.chain.addresses.bondVault, bondVaultAbi, 'deposit', [usdc(), amount]);
}

/** Records an order for the owner and places it on chain; returns the API order and its intent. */
async function placedOrder(): Promise<{ order: { id: string; intent_hash: string }; intent: OrderIntent }> {
  const order = (
    await request(app)
      .post('/api/orders')
      .send(orderBody(owner(), { pair: pair(), now: await h.chain.now() }))
      .expect(201)
  ).body;
  const intent = orderIntentFromJson(order);
  await send(OWNER, pair(), optionPairAbi, 'placeIntent', [intent]);
  await waitFor(
    'intent indexed',
    async () => (await request(app).get(`/api/orders/${order.id}`).expect(200)).body.on_chain,
    (c) => c !== null,
  );
  return { order, intent };
}

const orderState = async (id: string) => (await request(app).get(`/api/orders/${id}`).expect(200)).body;
const fillRow = async (id: string) => (await h.env.db.query(`SELECT state, used_tx_hash FROM exclusive_fills WHERE id = $1`, [id]))[0];

beforeAll(async () => {
  h = await openHarness({ ORDER_SWEEP_INTERVAL_MS: '200' });
  await h.register();
  await h.networks.setSetting('bond_requirements', { USDC: { premium_bond_amount: '1', fill_bond_amount: FILL_BOND.toString() } });
  let ctx;
  ({ app, ctx } = buildApp(h.env));
  const org = await ctx.services.identity.orgs.create({ kind: 'maker', name: 'Chain Makers', owner: h.chain.accounts[8].address });
  await ctx.services.identity.orgs.addMember({ organization_id: org.id, address: maker(), role: 'member' });
  makerToken = await signIn(app, h.chain.accounts[MAKER] as unknown as PrivateKeyAccount);
  ix = await runIndexer(h.env);
  workers = startWorkers(h.env);
  // The sweeper tells makers the states the indexer set (a fill used on chain).
  await scheduleOrderJobs(h.env.queue, h.env.config);
  await deposit(MAKER, FILL_BOND);
  await waitFor(
    'bond indexed',
    () => bondOf(maker()),
    (b) => b === FILL_BOND.toString(),
  );
}, 90_000);

afterAll(async () => {
  await workers?.close(true);
  await ix?.stop();
  await h?.close();
});

describe('orders on chain', () => {
  it('only the owner can place its intent, once per nonce', async () => {
    const order = (
      await request(app)
        .post('/api/orders')
        .send(orderBody(owner(), { pair: pair(), now: await h.chain.now() }))
        .expect(201)
    ).body;
    const intent = orderIntentFromJson(order);
    expect(await revertName(simulate(MAKER, 'placeIntent', [intent]))).toBe('NotIntentOwner');
    await send(OWNER, pair(), optionPairAbi, 'placeIntent', [intent]);
    expect(await revertName(simulate(OWNER, 'placeIntent', [intent]))).toBe('IntentNonceUsed');
    const onChain = await waitFor(
      'intent indexed',
      async () => (await orderState(order.id)).on_chain,
      (c) => c !== null,
    );
    expect(onChain).toMatchObject({ state: 'open', remaining: order.amount });
    // The portfolio snapshot lists the placed order among the owner's open orders.
    const snap = (await request(app).get(`/api/portfolio/${owner()}`).expect(200)).body.networks[0];
    expect(snap.open_orders).toEqual(expect.arrayContaining([expect.objectContaining({ order_id: onChain.pair_order_id, remaining: order.amount })]));
  });

  it('a maker fills with the API-signed exclusive fill; the indexer marks it used and the order filled; the maker hears both', async () => {
    const { order, intent } = await placedOrder();
    const reward = h.chain.accounts[7].address;
    const fill = (
      await request(app)
        .post('/api/exclusive-fill')
        .set(bearer(makerToken))
        .send({ order_ids: [order.id], reward_destination: reward })
        .expect(201)
    ).body;
    const msg: ExclusiveFill = fill.signed_message;

    // What the pair refuses: another caller, other intents, a reward outside the limits, a key it does not know.
    expect(await revertName(simulate(6, 'fillExclusive', [msg, fill.signature, [intent], REWARD]))).toBe('NotFillMaker');
    expect(await revertName(simulate(MAKER, 'fillExclusive', [msg, fill.signature, [{ ...intent, amount: intent.amount + 1n }], REWARD]))).toBe(
      'IntentDataMismatch',
    );
    expect(await revertName(simulate(MAKER, 'fillExclusive', [msg, fill.signature, [intent], 1n]))).toBe('RewardOutOfLimits');
    const stranger = privateKeyToAccount(generatePrivateKey());
    const forged = await stranger.signTypedData(exclusiveFillTypedData(h.chain.chainId, h.chain.addresses.mothership, msg));
    expect(await revertName(simulate(MAKER, 'fillExclusive', [msg, forged, [intent], REWARD]))).toBe('UnregisteredSigner');

    const tx = await send(MAKER, pair(), optionPairAbi, 'fillExclusive', [msg, fill.signature, [intent], REWARD]);
    expect(await revertName(simulate(MAKER, 'fillExclusive', [msg, fill.signature, [intent], REWARD]))).toBe('FillAlreadyUsed');
    const filled = await waitFor(
      'order filled',
      () => orderState(order.id),
      (o) => o.state === 'filled',
    );
    expect(filled).toMatchObject({ fill_tx_hash: tx.toLowerCase(), on_chain: expect.objectContaining({ state: 'filled', remaining: '0' }) });
    expect(await fillRow(fill.exclusive_fill_id)).toEqual({ state: 'used', used_tx_hash: tx.toLowerCase() });
    const heard = await eventually(
      () => topicEvents(h.env, topics.rfqMaker(maker())),
      (e) => e.some((x) => x.event === 'exclusive_fill_used'),
    );
    const mine = heard.filter((e) => e.payload.exclusive_fill_id === fill.exclusive_fill_id);
    expect(mine.map((e) => e.event)).toEqual(['exclusive_fill_issued', 'exclusive_fill_used']);
    expect(mine[1].payload).toMatchObject({ state: 'used', used_tx_hash: tx.toLowerCase(), order_ids: [order.id] });
  });

  it('a reorg that removes the fill reopens the order and reactivates the fill; one that removes a deposit restores the bond', async () => {
    const { order, intent } = await placedOrder();
    const fill = (
      await request(app)
        .post('/api/exclusive-fill')
        .set(bearer(makerToken))
        .send({ order_ids: [order.id], reward_destination: maker() })
        .expect(201)
    ).body;
    const forkAt = await waitForHead(h);
    const snapshot = await h.chain.rpc<string>('evm_snapshot');
    await send(MAKER, pair(), optionPairAbi, 'fillExclusive', [fill.signed_message, fill.signature, [intent], REWARD]);
    await deposit(MAKER, 5n);
    await waitFor(
      'fill and deposit indexed',
      async () => ({ o: (await orderState(order.id)).state, b: await bondOf(maker()) }),
      (v) => v.o === 'filled' && v.b === (FILL_BOND + 5n).toString(),
    );
    const tip = await waitForHead(h);

    await h.chain.rpc('evm_revert', [snapshot]);
    await mineBlocks(h.chain, tip - forkAt + 2);
    const reopened = await waitFor(
      'reorg undone',
      () => orderState(order.id),
      (o) => o.state === 'open',
    );
    expect(reopened).toMatchObject({ fill_tx_hash: null, closed_at: null, on_chain: expect.objectContaining({ state: 'open' }) });
    expect(await fillRow(fill.exclusive_fill_id)).toEqual({ state: 'active', used_tx_hash: null });
    expect(await bondOf(maker())).toBe(FILL_BOND.toString());
    // The fill is live again: it holds the order, and its maker's one bond is reserved for it (issue #38).
    const again = await request(app)
      .post('/api/exclusive-fill')
      .set(bearer(makerToken))
      .send({ order_ids: [order.id], reward_destination: maker() })
      .expect(403);
    expect(again.body.code).toBe('insufficient_fill_bond');
    expect(again.body.error).toContain('reserved by 1 live exclusive right');
  });

  it('an owner cancelling its book order on chain reads as cancelled through the API', async () => {
    const { order } = await placedOrder();
    const { pair_order_id } = (await orderState(order.id)).on_chain;
    await send(OWNER, pair(), optionPairAbi, 'cancelOrder', [BigInt(pair_order_id)]);
    const cancelled = await waitFor(
      'cancel indexed',
      () => orderState(order.id),
      (o) => o.state === 'cancelled',
    );
    expect(cancelled.on_chain.state).toBe('cancelled');
    const res = await request(app)
      .post('/api/exclusive-fill')
      .set(bearer(makerToken))
      .send({ order_ids: [order.id], reward_destination: maker() })
      .expect(409);
    expect(res.body.code).toBe('order_not_open');
  });
});
