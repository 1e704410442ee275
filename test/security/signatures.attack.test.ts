import type { Express } from 'express';
import type { Hex } from 'viem';
import type { ApiContext } from '../../api/context';
import { isCanonicalSignature } from '../../shared/protocol';
import { NetworksService } from '../../shared/networks';
import type { TestChain } from '../support/chain';
import { sharedTestChain } from '../support/worker-chain';
import { dutchBody } from '../support/dutch';
import { buildApp, request } from '../support/http';
import { highS, withV } from '../support/malleate';
import { signedOffer } from '../support/offers';
import { intents, quoteBody, STRATEGY_ROWS } from '../support/quotes';
import { createTestEnv, type TestEnv } from '../support/test-env';
import { bearer, newWallet, signedKeyAdd, signedLogin, signIn, signStatement } from '../support/wallets';

/**
 * Finding (issue #23, signatures): the mothership's `_recover` refuses a signature whose s is in
 * the upper half of the curve order or whose v is not 27/28, but the API recovered signatures
 * with viem, which accepts both. An attacker (or a sloppy signer) could take any valid signature,
 * malleate it (s' = n - s, v flipped: the same signer recovers) and have the service store an
 * auction or offer that can never fill on chain. Every signature the API takes is now held to
 * the contracts' rule, and a refusal is a 400 naming the field, with nothing stored.
 */
describe('attack: malleable (high-s) and bad-v signatures', () => {
  let chain: TestChain;
  let env: TestEnv;
  let app: Express;
  let ctx: ApiContext;

  beforeAll(async () => {
    chain = await sharedTestChain();
    env = await createTestEnv();
    ({ app, ctx } = buildApp(env));
    await new NetworksService(env.db).upsertNetwork(chain.network);
  }, 120_000);
  afterAll(async () => {
    await env?.close();
    await chain?.stop();
  });

  const count = async (sql: string, params: unknown[] = []) => Number((await env.db.query(sql, params))[0].n);

  function expectFieldRefused(res: { status: number; body: { code: string; details: { path: string; message: string }[] } }, path: string, message: RegExp) {
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_failed');
    expect(res.body.details).toEqual([{ path, message: expect.stringMatching(message) }]);
  }

  /** A taker-signed Dutch request on the test chain's pair, with the chain's own tokens. */
  async function chainDutchBody() {
    const taker = newWallet();
    const a = chain.addresses;
    const body = await dutchBody(taker, {
      chainId: chain.chainId,
      mothership: a.mothership,
      pair: a.pair,
      request: { tokens: [{ token0: a.weth, token1: a.usdc, premium_token: a.usdc }], dutch_premium: dutchPremium(a.usdc) },
    });
    return { taker, body };
  }

  it("a Dutch request with the high-s twin of the taker's signature is refused naming taker_signature; the genuine one is then accepted", async () => {
    const { body } = await chainDutchBody();
    const genuine = body.taker_signature as Hex;
    const twin = highS(genuine);
    expect(isCanonicalSignature(genuine)).toBe(true);
    const dutchCount = () => count(`SELECT count(*)::int AS n FROM quotes WHERE offer_format = 'dutch_only'`);
    const before = await dutchCount();

    expectFieldRefused(
      await request(app)
        .post('/api/quote')
        .send({ ...body, taker_signature: twin }),
      'taker_signature',
      /high s/,
    );
    for (const v of [29, 0x1d, 2, 35]) {
      expectFieldRefused(
        await request(app)
          .post('/api/quote')
          .send({ ...body, taker_signature: withV(genuine, v) }),
        'taker_signature',
        new RegExp(`v = ${v}`),
      );
    }
    expect(await dutchCount()).toBe(before);

    // The refusals used up nothing: the same request with its genuine signature (same nonce) is accepted.
    const ok = await request(app).post('/api/quote').send(body).expect(201);
    expect(ok.body.quote.taker_signature).toBe(genuine.toLowerCase());
    expect(await dutchCount()).toBe(before + 1);
  });

  it('a package offer signed with the high-s twin (or a bad v) is refused naming signature; nothing is stored', async () => {
    const maker = newWallet();
    const owner = newWallet();
    const org = await ctx.services.identity.orgs.create({ kind: 'maker', name: 'Malleators', owner: owner.address });
    await ctx.services.identity.orgs.addMember({ organization_id: org.id, address: maker.address, role: 'member' });
    const makerToken = await signIn(app, maker);
    const created = await request(app)
      .post('/api/quote')
      .send(
        quoteBody(newWallet().address, STRATEGY_ROWS[7].legs, {
          chain_id: chain.chainId,
          intents: intents(STRATEGY_ROWS[7].legs, { pair: chain.addresses.pair }),
        }),
      )
      .expect(201);
    const quote = created.body.quote;
    const offer = await signedOffer(quote, maker, { mothership: chain.addresses.mothership, premiumToken: chain.addresses.usdc });
    const genuine = offer.signature as Hex;
    const offers = () => count(`SELECT count(*)::int AS n FROM quote_offers WHERE quote_id = $1`, [quote.id]);

    expectFieldRefused(
      await request(app)
        .post(`/api/quote/${quote.id}`)
        .set(bearer(makerToken))
        .send({ ...offer, signature: highS(genuine) }),
      'signature',
      /high s/,
    );
    expectFieldRefused(
      await request(app)
        .post(`/api/quote/${quote.id}`)
        .set(bearer(makerToken))
        .send({ ...offer, signature: withV(genuine, 29) }),
      'signature',
      /v = 29/,
    );
    expect(await offers()).toBe(0);

    await request(app).post(`/api/quote/${quote.id}`).set(bearer(makerToken)).send(offer).expect(201);
    expect(await offers()).toBe(1);
  });

  it("admin statements and the bot wallet's address_signature refuse the high-s twin naming their field; no key is issued and the statement stays usable", async () => {
    const owner = newWallet();
    const bot = newWallet();
    const org = await ctx.services.identity.orgs.create({ kind: 'maker', name: 'Statement Malleators', owner: owner.address });
    const ownerToken = await signIn(app, owner);
    const keys = () => count(`SELECT count(*)::int AS n FROM api_keys WHERE organization_id = $1`, [org.id]);
    const add = await signedKeyAdd(owner, bot, { organization: org.id, name: 'pricer' });

    const post = (body: object) => request(app).post('/api/maker/keys').set(bearer(ownerToken)).send(body);
    expectFieldRefused(await post({ ...add, signature: highS(add.signature) }), 'signature', /high s/);
    expectFieldRefused(await post({ ...add, signature: withV(add.signature, 0x1d) }), 'signature', /v = 29/);
    expectFieldRefused(await post({ ...add, address_signature: highS(add.address_signature) }), 'address_signature', /high s/);
    expect(await keys()).toBe(0);
    // The genuine statement was not used up by the refusals.
    const issued = await post(add).expect(201);
    expect(await keys()).toBe(1);

    const remove = await signStatement(owner, { action: 'remove_member', member: bot.address, organization: org.id, name: 'pricer' });
    expectFieldRefused(
      await request(app)
        .delete(`/api/maker/keys/${issued.body.id}`)
        .set(bearer(ownerToken))
        .send({ ...remove, signature: highS(remove.signature) }),
      'signature',
      /high s/,
    );
    const successor = newWallet();
    const transfer = await signStatement(owner, { action: 'transfer_admin', member: successor.address, organization: org.id, name: 'Statement Malleators' });
    expectFieldRefused(
      await request(app)
        .put('/api/maker/organization')
        .set(bearer(ownerToken))
        .send({
          new_admin: successor.address,
          ...transfer,
          signature: highS(transfer.signature),
          new_admin_signature: await successor.signMessage({ message: transfer.message }),
        }),
      'signature',
      /high s/,
    );
    expect(await count(`SELECT count(*)::int AS n FROM api_keys WHERE organization_id = $1 AND revoked_at IS NULL`, [org.id])).toBe(1);
    expect((await ctx.services.identity.orgs.membership(owner.address, 'maker'))?.role).toBe('owner');
  });

  it('a taker admin action (mint a delegate) with the high-s twin is refused naming signature', async () => {
    const admin = newWallet();
    const org = await ctx.services.identity.orgs.create({ kind: 'taker', name: 'Taker Malleators', owner: admin.address });
    const adminToken = await signIn(app, admin);
    const delegate = newWallet().address;
    const signed = await signStatement(admin, { kind: 'taker', action: 'mint_delegate', member: delegate, organization: org.id, name: 'Taker Malleators' });
    const res = await request(app)
      .post('/api/taker/delegate')
      .set(bearer(adminToken))
      .send({ address: delegate, expires_in: 300, ...signed, signature: highS(signed.signature) });
    expectFieldRefused(res, 'signature', /high s/);
    expect(res.body.token).toBeUndefined();
  });

  it('a SIWE login with the high-s twin is refused naming signature, and the nonce stays usable', async () => {
    const wallet = newWallet();
    const login = await signedLogin(app, wallet);
    expectFieldRefused(
      await request(app)
        .post('/api/login')
        .send({ ...login, signature: highS(login.signature) }),
      'signature',
      /high s/,
    );
    expectFieldRefused(
      await request(app)
        .post('/api/login')
        .send({ ...login, signature: withV(login.signature, 29) }),
      'signature',
      /v = 29/,
    );
    const ok = await request(app).post('/api/login').send(login).expect(200);
    expect(ok.body.address).toBe(wallet.address);
  });
});

function dutchPremium(token: string) {
  const now = Math.floor(Date.now() / 1000);
  return { token, maker_pays_taker: false, start_premium: '100000000', end_premium: '200000000', decay_rate: '0', auction_start: now };
}
