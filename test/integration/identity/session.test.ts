import type { Express } from 'express';
import type { PrivateKeyAccount } from 'viem/accounts';
import type { ApiContext } from '../../../api/context';
import { buildApp, request } from '../../support/http';
import { createTestEnv, type TestEnv } from '../../support/test-env';
import { bearer, newWallet, signedKeyAdd, signIn, signStatement } from '../../support/wallets';

const WALLET_REQUIRED = 'an authenticated wallet is required: a SIWE bearer, a taker delegate or a maker API key';

/** GET /api/me is "bearer" in the spec: every credential that speaks for a wallet gets its own session answer. */
describe('GET /api/me for each kind of bearer', () => {
  let env: TestEnv;
  let app: Express;
  let ctx: ApiContext;
  let makerOrg: string;
  let takerOrg: string;
  let makerOwner: PrivateKeyAccount;
  let makerOwnerToken: string;
  let takerOwner: PrivateKeyAccount;
  let takerOwnerToken: string;
  let takerSecret: string;
  let takerKeyId: string;

  function unauthorized(res: request.Response): void {
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: WALLET_REQUIRED, code: 'wallet_required', request_id: expect.any(String) });
  }

  async function makerKey(bot: PrivateKeyAccount, name: string): Promise<{ id: string; secret: string }> {
    const res = await request(app)
      .post('/api/maker/keys')
      .set(bearer(makerOwnerToken))
      .send(await signedKeyAdd(makerOwner, bot, { organization: makerOrg, name }))
      .expect(201);
    return res.body;
  }

  async function keyedDelegate(address: `0x${string}`): Promise<string> {
    return (await request(app).post('/api/taker/delegate').set(bearer(takerSecret)).send({ address, expires_in: 600 }).expect(200)).body.token;
  }

  beforeAll(async () => {
    env = await createTestEnv();
    ({ app, ctx } = buildApp(env));
    const { orgs } = ctx.services.identity;
    makerOwner = newWallet();
    makerOwnerToken = await signIn(app, makerOwner);
    makerOrg = (await orgs.create({ kind: 'maker', name: 'Deep Liquidity', owner: makerOwner.address })).id;
    takerOwner = newWallet();
    takerOwnerToken = await signIn(app, takerOwner);
    takerOrg = (await orgs.create({ kind: 'taker', name: 'Integrator', owner: takerOwner.address })).id;
    const key = (await request(app).post('/api/taker/keys').set(bearer(takerOwnerToken)).send({ name: 'backend' }).expect(201)).body;
    takerSecret = key.secret;
    takerKeyId = key.id;
  });
  afterAll(() => env.close());

  it('a SIWE session: freemium for a plain wallet, maker with role and organization for a member', async () => {
    const plain = newWallet();
    const me = await request(app)
      .get('/api/me')
      .set(bearer(await signIn(app, plain)))
      .expect(200);
    expect(me.body).toEqual({ credential: 'siwe', address: plain.address, tier: 'freemium' });
    const owner = await request(app).get('/api/me').set(bearer(makerOwnerToken)).expect(200);
    expect(owner.body).toEqual({
      credential: 'siwe',
      address: makerOwner.address,
      tier: 'maker',
      role: 'owner',
      organization_id: makerOrg,
      organization_name: 'Deep Liquidity',
      dutch_fades: { count: 0, window_seconds: 86400, limit: 3, blocked_until: null },
    });
  });

  it('a maker API key: its bot wallet, tier maker, role member, its organization and key id', async () => {
    const bot = newWallet();
    const key = await makerKey(bot, 'pricer');
    const me = await request(app).get('/api/me').set(bearer(key.secret)).expect(200);
    expect(me.body).toEqual({
      credential: 'maker_key',
      address: bot.address,
      tier: 'maker',
      role: 'member',
      organization_id: makerOrg,
      organization_name: 'Deep Liquidity',
      key_id: key.id,
      // No Dutch award of its organization faded: it may bid (docs/DUTCH.md, "Fades").
      dutch_fades: { count: 0, window_seconds: 86400, limit: 3, blocked_until: null },
    });
  });

  it("a maker key on a managing wallet is still role member: a key never manages, whatever its wallet's role", async () => {
    const key = await makerKey(makerOwner, 'owner as bot');
    const me = await request(app).get('/api/me').set(bearer(key.secret)).expect(200);
    expect(me.body).toMatchObject({ credential: 'maker_key', address: makerOwner.address, role: 'member', key_id: key.id });
  });

  it('a delegate minted with a taker key: the end-user wallet, freemium, the taker organization and key id', async () => {
    const user = newWallet().address;
    const me = await request(app)
      .get('/api/me')
      .set(bearer(await keyedDelegate(user)))
      .expect(200);
    expect(me.body).toEqual({
      credential: 'delegate',
      address: user,
      tier: 'freemium',
      organization_id: takerOrg,
      organization_name: 'Integrator',
      key_id: takerKeyId,
    });
  });

  it('a delegate minted by the taker admin carries key_id null', async () => {
    const user = newWallet().address;
    const signed = await signStatement(takerOwner, { kind: 'taker', action: 'mint_delegate', member: user, organization: takerOrg, name: 'Integrator' });
    const token = (
      await request(app)
        .post('/api/taker/delegate')
        .set(bearer(takerOwnerToken))
        .send({ address: user, expires_in: 600, ...signed })
        .expect(200)
    ).body.token;
    const me = await request(app).get('/api/me').set(bearer(token)).expect(200);
    expect(me.body).toEqual({
      credential: 'delegate',
      address: user,
      tier: 'freemium',
      organization_id: takerOrg,
      organization_name: 'Integrator',
      key_id: null,
    });
  });

  it("a delegate is freemium even for a maker member's wallet: it carries no maker rights", async () => {
    const me = await request(app)
      .get('/api/me')
      .set(bearer(await keyedDelegate(makerOwner.address)))
      .expect(200);
    expect(me.body).toMatchObject({ credential: 'delegate', address: makerOwner.address, tier: 'freemium', organization_id: takerOrg });
  });

  it('401 wallet_required: no bearer, a malformed or forged one, a raw taker key', async () => {
    unauthorized(await request(app).get('/api/me'));
    unauthorized(await request(app).get('/api/me').set(bearer('nonsense')));
    unauthorized(await request(app).get('/api/me').set({ Authorization: 'Basic abc' }));
    unauthorized(await request(app).get('/api/me').set(bearer('eyJhbGciOiJIUzI1NiJ9.eyJ0eXAiOiJzaXdlIn0.AAAA')));
    unauthorized(
      await request(app)
        .get('/api/me')
        .set(bearer(`mk_${'0'.repeat(32)}_${'A'.repeat(43)}`)),
    );
    // A raw taker key is a backend's credential, not a wallet: it mints delegates and nothing else.
    unauthorized(await request(app).get('/api/me').set(bearer(takerSecret)));
  });

  it('401 once the credential is removed: a maker key, and the delegates of a removed taker key', async () => {
    const bot = newWallet();
    const key = await makerKey(bot, 'short lived');
    const removal = await signStatement(makerOwner, { action: 'remove_member', member: bot.address, organization: makerOrg, name: 'short lived' });
    await request(app).delete(`/api/maker/keys/${key.id}`).set(bearer(makerOwnerToken)).send(removal).expect(200);
    unauthorized(await request(app).get('/api/me').set(bearer(key.secret)));

    const other = (await request(app).post('/api/taker/keys').set(bearer(takerOwnerToken)).send({ name: 'doomed' }).expect(201)).body;
    const delegate = (
      await request(app).post('/api/taker/delegate').set(bearer(other.secret)).send({ address: newWallet().address, expires_in: 600 }).expect(200)
    ).body.token;
    await request(app).get('/api/me').set(bearer(delegate)).expect(200);
    await request(app).delete(`/api/taker/keys/${other.id}`).set(bearer(takerOwnerToken)).expect(200);
    unauthorized(await request(app).get('/api/me').set(bearer(delegate)));
  });
});
