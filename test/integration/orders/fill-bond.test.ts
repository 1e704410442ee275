import type { Express } from 'express';
import { getAddress } from 'viem';
import { FillBondCheck } from '../../../shared/bonds';
import { NetworksService } from '../../../shared/networks';
import type { ApiContext } from '../../../api/context';
import { networkFile, randomAddress } from '../../support/fixtures';
import { buildApp, request } from '../../support/http';
import { indexFixturePair, indexPlacement, orderBody } from '../../support/orders';
import { FIXTURE_USDC } from '../../support/quotes';
import { createTestEnv, type TestEnv } from '../../support/test-env';
import { bearer, newWallet, signIn } from '../../support/wallets';

const FILL_BOND = 1000n;
const SYMBOLS = new Map([[getAddress(FIXTURE_USDC), 'USDC']]);

/**
 * The one fill bond check exclusive fills and Dutch bids share (shared/bonds), on a real
 * database: it fails closed on a premium token without a `bond_requirements` entry, and counts a
 * bond with a pending withdrawal as gone, from the BondVault events as the indexer writes them.
 */
describe('the fill bond check', () => {
  let env: TestEnv;
  let app: Express;
  let ctx: ApiContext;
  let networks: NetworksService;
  let block = 1000;

  /** A BondVault event as the indexer writes it. */
  async function bondEvent(maker: string, kind: 'deposit' | 'request' | 'withdraw', amount: bigint, balance: bigint): Promise<void> {
    const n = ++block;
    await env.db.query(
      `INSERT INTO indexer_bond_events (chain_id, block_number, block_hash, block_timestamp, log_index, tx_hash, vault, maker, token, kind, amount, balance, withdrawable_at)
       VALUES (31337, $1, $2, 0, 0, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [
        n,
        `0x${n.toString(16).padStart(64, '0')}`,
        randomAddress(),
        maker,
        FIXTURE_USDC,
        kind,
        amount.toString(),
        balance.toString(),
        kind === 'request' ? 7200 : null,
      ],
    );
  }
  const check = (maker: `0x${string}`) => new FillBondCheck({ db: env.db, networks }).check(31337, maker, [FIXTURE_USDC], SYMBOLS);

  beforeAll(async () => {
    env = await createTestEnv();
    ({ app, ctx } = buildApp(env));
    networks = new NetworksService(env.db);
    await networks.upsertNetwork(networkFile(31337));
    await indexFixturePair(env.db);
  });
  afterAll(() => env.close());
  beforeEach(() => networks.setSetting('bond_requirements', { USDC: { premium_bond_amount: '1', fill_bond_amount: FILL_BOND.toString() } }));

  it('a pending withdrawal is not available: refused while pending, counted again when cancelled, gone once withdrawn', async () => {
    const maker = newWallet().address;
    await bondEvent(maker, 'deposit', 1500n, 1500n);
    await expect(check(maker)).resolves.toEqual({ USDC: { token: FIXTURE_USDC, fill_bond_amount: '1000', maker_bond: '1500' } });
    await bondEvent(maker, 'request', 600n, 1500n);
    await expect(check(maker)).rejects.toMatchObject({
      status: 403,
      code: 'insufficient_fill_bond',
      message: expect.stringContaining('USDC bond 900 (600 of 1500 is pending withdrawal) is below the fill bond minimum 1000'),
      extra: { fill_bond_requirements: { USDC: { token: FIXTURE_USDC, fill_bond_amount: '1000', maker_bond: '900' } } },
    });
    // A new request replaces the pending amount; 0 cancels it.
    await bondEvent(maker, 'request', 0n, 1500n);
    await expect(check(maker)).resolves.toMatchObject({ USDC: { maker_bond: '1500' } });
    await bondEvent(maker, 'request', 500n, 1500n);
    await expect(check(maker)).resolves.toMatchObject({ USDC: { maker_bond: '1000' } });
    await bondEvent(maker, 'withdraw', 500n, 1000n);
    await expect(check(maker)).resolves.toMatchObject({ USDC: { maker_bond: '1000' } });
    // A deposit after a request leaves the request pending.
    await bondEvent(maker, 'request', 1000n, 1000n);
    await bondEvent(maker, 'deposit', 200n, 1200n);
    await expect(check(maker)).rejects.toMatchObject({ code: 'insufficient_fill_bond', extra: { fill_bond_requirements: { USDC: { maker_bond: '200' } } } });
  });

  it('fails closed: a token without an entry is refused even to a bonded maker; an explicit zero needs no bond', async () => {
    const maker = newWallet().address;
    await bondEvent(maker, 'deposit', 5000n, 5000n);
    await networks.setSetting('bond_requirements', { WETH: { premium_bond_amount: '1', fill_bond_amount: '1' } });
    await expect(check(maker)).rejects.toMatchObject({
      status: 403,
      code: 'bond_requirement_missing',
      message: expect.stringContaining(`USDC (${getAddress(FIXTURE_USDC)})`),
    });
    await networks.setSetting('bond_requirements', { USDC: { premium_bond_amount: '0', fill_bond_amount: '0' } });
    await expect(check(newWallet().address)).resolves.toEqual({ USDC: { token: getAddress(FIXTURE_USDC), fill_bond_amount: '0', maker_bond: '0' } });
  });

  it('an exclusive fill on a premium token without an entry is refused over HTTP with 403 bond_requirement_missing, and the order stays open', async () => {
    const owner = newWallet();
    const maker = newWallet();
    const org = await ctx.services.identity.orgs.create({ kind: 'maker', name: 'Fail-closed makers', owner: randomAddress() });
    await ctx.services.identity.orgs.addMember({ organization_id: org.id, address: maker.address, role: 'member' });
    await bondEvent(maker.address, 'deposit', 5000n, 5000n);
    const order = (await request(app).post('/api/orders').send(orderBody(owner.address)).expect(201)).body;
    // Placed by its owner (as indexed): an unplaced order is refused before any bond is looked at.
    await indexPlacement(env.db, order);
    await networks.setSetting('bond_requirements', {});
    const res = await request(app)
      .post('/api/exclusive-fill')
      .set(bearer(await signIn(app, maker)))
      .send({ order_ids: [order.id], reward_destination: maker.address })
      .expect(403);
    expect(res.body).toMatchObject({ code: 'bond_requirement_missing' });
    expect(res.body.error).toContain('bond_requirements');
    expect((await request(app).get(`/api/orders/${order.id}`).expect(200)).body.state).toBe('open');
  });
});
