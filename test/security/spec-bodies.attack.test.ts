import type { Socket } from 'phoenix';
import type { PrivateKeyAccount } from 'viem/accounts';
import { rfqMakerTopic } from '../../shared/events';
import { makerKeyVerificationMessage } from '../../shared/identity/key-verification';
import { chainDutchBody } from '../support/dutch';
import { request } from '../support/http';
import { orderBody } from '../support/orders';
import { bearer, newWallet, signedKeyAdd, signIn, signStatement } from '../support/wallets';
import { disconnect, join, phoenixSocket, refusal, startReplica, type Replica } from '../integration/socket/socket-harness';
import { openDutchStack, type DutchStack } from './dutch-stack';

/**
 * Issue #38, "the spec's bodies". A client written from the spec adds a maker key with
 * `address`, `name`, `message`, `signature` and no `address_signature`: that was a 400. Now the key
 * is created unverified; it authenticates, but nothing that binds its wallet (a Dutch bid, an
 * exclusive fill, the private rfq_maker topic, acting as the wallet) works until the bot wallet
 * proves itself. And an unverified key cannot squat a wallet: the wallet's own proof for another
 * key removes it. A repeated order create answers the spec's 201 with Idempotent-Replayed.
 * Real stack: Hardhat with the reference contracts, the API over HTTP, the socket tier, workers.
 */
describe("attack: a maker key bound by the spec's body, without the wallet's signature", () => {
  let s: DutchStack;
  let r: Replica;
  let orgId: string;
  let owner: PrivateKeyAccount;
  let ownerToken: string;
  const sockets: Socket[] = [];
  const socket = () => {
    const c = phoenixSocket(r.url);
    sockets.push(c);
    return c;
  };

  /** POST /api/maker/keys with exactly the spec's body. */
  async function specKey(admin: PrivateKeyAccount, adminToken: string, org: string, bot: `0x${string}`, name: string) {
    const signed = await signStatement(admin, { action: 'add_member', member: bot, organization: org, name });
    return request(s.app)
      .post('/api/maker/keys')
      .set(bearer(adminToken))
      .send({ address: bot, name, ...signed });
  }

  beforeAll(async () => {
    s = await openDutchStack({ LOGIN_RATE_LIMIT: '1000' });
    r = await startReplica(s.h.env, { withApi: true });
    owner = newWallet();
    orgId = (await s.ctx.services.identity.orgs.create({ kind: 'maker', name: `Spec makers ${Date.now()}`, owner: owner.address })).id;
    ownerToken = await signIn(s.app, owner);
  }, 120_000);
  afterEach(async () => {
    await Promise.all(sockets.splice(0).map(disconnect));
  });
  afterAll(async () => {
    await r?.close();
    await s?.close();
  });

  it('is created unverified; it authenticates but may not bid, take an exclusive fill, cancel for the wallet or join rfq_maker until the wallet signs', async () => {
    const bot = newWallet();
    const created = await specKey(owner, ownerToken, orgId, bot.address, 'spec bot');
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ address: bot.address, name: 'spec bot', verified: false, secret: expect.any(String) });
    const key = created.body as { id: string; secret: string };

    expect((await request(s.app).get('/api/me').set(bearer(key.secret)).expect(200)).body).toMatchObject({ credential: 'maker_key', address: bot.address });
    const auction = await chainDutchBody(s.h.chain, newWallet(), { body: { compete_ms: 60_000 } });
    const quoteId = (await request(s.app).post('/api/quote').send(auction).expect(201)).body.quote.id as string;
    const bid = () => request(s.app).post(`/api/quote/${quoteId}/offer`).set(bearer(key.secret)).send({ buy_override_bps: 5, sell_override_bps: 5 });
    expect((await bid().expect(403)).body.code).toBe('maker_key_unverified');
    expect(await s.h.env.db.query(`SELECT 1 FROM dutch_bids WHERE quote_id = $1`, [quoteId])).toHaveLength(0);
    const fill = await request(s.app)
      .post('/api/exclusive-fill')
      .set(bearer(key.secret))
      .send({ order_ids: ['4c1f0c9e-8a55-4b0e-9d3a-2f0b5c1e7a10'], reward_destination: bot.address })
      .expect(403);
    expect(fill.body.code).toBe('maker_key_unverified');
    const order = await request(s.app)
      .post('/api/orders')
      .send(orderBody(bot.address, { pair: s.h.chain.addresses.pair }))
      .expect(201);
    expect((await request(s.app).post(`/api/orders/${order.body.id}/cancel`).set(bearer(key.secret)).expect(403)).body.code).toBe('maker_key_unverified');
    expect(await refusal(socket(), rfqMakerTopic(bot.address), { api_key: key.secret })).toMatch(/unverified/);

    // Someone else's signature does not verify it; the bot wallet's own does.
    const text = makerKeyVerificationMessage(key.id, bot.address, orgId);
    const wrong = await request(s.app)
      .post(`/api/maker/keys/${key.id}/verify`)
      .set(bearer(ownerToken))
      .send({ signature: await owner.signMessage({ message: text }) })
      .expect(403);
    expect(wrong.body).toMatchObject({ code: 'address_signature_mismatch', details: [{ path: 'signature' }] });
    const verified = await request(s.app)
      .post(`/api/maker/keys/${key.id}/verify`)
      .set(bearer(ownerToken))
      .send({ signature: await bot.signMessage({ message: text }) })
      .expect(200);
    expect(verified.body).toMatchObject({ id: key.id, verified: true });
    expect((await bid().expect(201)).body.bid.maker).toBe(bot.address);
    const joined = await join(socket(), rfqMakerTopic(bot.address), { api_key: key.secret });
    expect(joined.reply.status).toBe('ok');
  });

  it("the bot wallet's own SIWE sign-in verifies its key", async () => {
    const bot = newWallet();
    const key = (await specKey(owner, ownerToken, orgId, bot.address, 'signs in')).body as { id: string; secret: string };
    expect(await refusal(socket(), rfqMakerTopic(bot.address), { api_key: key.secret })).toMatch(/unverified/);
    await signIn(s.app, bot);
    const listed = await request(s.app).get('/api/maker/keys').set(bearer(ownerToken)).expect(200);
    expect(listed.body.keys.find((k: { id: string }) => k.id === key.id)).toMatchObject({ verified: true });
    expect((await join(socket(), rfqMakerTopic(bot.address), { api_key: key.secret })).reply.status).toBe('ok');
  });

  it("an unverified key cannot squat a wallet: the wallet's owner organization adds its own verified key, and the squatter's key is removed", async () => {
    const victimOwner = newWallet();
    const victimOrg = await s.ctx.services.identity.orgs.create({ kind: 'maker', name: `Squatted ${Date.now()}`, owner: victimOwner.address });
    const victimBot = newWallet();
    const squat = (await specKey(owner, ownerToken, orgId, victimBot.address, 'squat')).body as { id: string; secret: string };
    const own = await request(s.app)
      .post('/api/maker/keys')
      .set(bearer(await signIn(s.app, victimOwner)))
      .send(await signedKeyAdd(victimOwner, victimBot, { organization: victimOrg.id, name: 'own bot' }))
      .expect(201);
    expect(own.body.verified).toBe(true);
    await request(s.app).get('/api/me').set(bearer(squat.secret)).expect(401);
    // Nor may the squatter verify it afterwards (it is gone).
    await request(s.app)
      .post(`/api/maker/keys/${squat.id}/verify`)
      .set(bearer(ownerToken))
      .send({ signature: await victimBot.signMessage({ message: makerKeyVerificationMessage(squat.id, victimBot.address, orgId) }) })
      .expect(404);
  });

  it("a repeated order create answers the spec's 201, saying Idempotent-Replayed: true", async () => {
    const body = orderBody(newWallet().address, { pair: s.h.chain.addresses.pair });
    const first = await request(s.app).post('/api/orders').send(body).expect(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await request(s.app).post('/api/orders').send(body).expect(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.id).toBe(first.body.id);
  });
});
