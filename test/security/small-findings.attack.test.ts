import crypto from 'node:crypto';
import type { Express } from 'express';
import { NetworksService } from '../../shared/networks';
import { networkFile, randomAddress } from '../support/fixtures';
import { buildApp, request } from '../support/http';
import { orderBody } from '../support/orders';
import { quoteBody, STRATEGY_ROWS } from '../support/quotes';
import { createTestEnv, type TestEnv } from '../support/test-env';
import { bearer, newWallet, signIn, signedKeyAdd } from '../support/wallets';

/**
 * Issue #38, finding 5e, over HTTP on the real API (Postgres, Redis): names that are blank or not
 * valid Unicode, unknown fields on POST /api/taker/delegate, and a raw taker API key used as the
 * bearer of a route that must refuse it. Each was accepted before.
 */
describe('attack: the smaller holes of finding 5', () => {
  let env: TestEnv;
  let app: Express;
  let ctx: ReturnType<typeof buildApp>['ctx'];
  let makerOrg: string;
  const admin = newWallet();
  let adminToken: string;
  let takerSecret: string;

  beforeAll(async () => {
    env = await createTestEnv({ LOGIN_RATE_LIMIT: '1000' });
    ({ app, ctx } = buildApp(env));
    await new NetworksService(env.db).upsertNetwork(networkFile(31337));
    makerOrg = (await ctx.services.identity.orgs.create({ kind: 'maker', name: 'Name Checkers', owner: admin.address })).id;
    adminToken = await signIn(app, admin);
    const takerAdmin = newWallet();
    await ctx.services.identity.orgs.create({ kind: 'taker', name: 'Key Holders', owner: takerAdmin.address });
    takerSecret = (
      await request(app)
        .post('/api/taker/keys')
        .set(bearer(await signIn(app, takerAdmin)))
        .send({ name: 'backend' })
        .expect(201)
    ).body.secret;
  });
  afterAll(() => env.close());

  const keyRows = async () => (await env.db.query(`SELECT count(*)::int AS n FROM api_keys`))[0].n as number;

  it('a blank or lone-surrogate key name is a 400 naming name, nothing stored; a name is stored trimmed and NFC-normalised', async () => {
    const before = await keyRows();
    for (const name of ['   ', '\u00a0\t', 'bot\ud800', '\udc00']) {
      const bot = newWallet();
      const res = await request(app)
        .post('/api/maker/keys')
        .set(bearer(adminToken))
        .send(await signedKeyAdd(admin, bot, { organization: makerOrg, name: 'placeholder' }).then((b) => ({ ...b, name })));
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'validation_failed', details: [expect.objectContaining({ path: 'name' })] });
    }
    expect(await keyRows()).toBe(before);
    // "Cafe\u0301" (e + combining accent) is "Café" (one code point) once normalised; the statement names the stored form.
    const bot = newWallet();
    const signed = await signedKeyAdd(admin, bot, { organization: makerOrg, name: 'Caf\u00e9' });
    const res = await request(app)
      .post('/api/maker/keys')
      .set(bearer(adminToken))
      .send({ ...signed, name: '  Cafe\u0301 ' })
      .expect(201);
    expect(res.body.name).toBe('Caf\u00e9');
    await expect(ctx.services.identity.orgs.create({ kind: 'maker', name: ' \u3000 ', owner: newWallet().address })).rejects.toMatchObject({
      status: 400,
      details: [expect.objectContaining({ path: 'name' })],
    });
  });

  it('POST /api/taker/delegate with the API key refuses unknown fields, naming them (as every strict body does)', async () => {
    const res = await request(app)
      .post('/api/taker/delegate')
      .set(bearer(takerSecret))
      .send({ address: newWallet().address, expires_in: 60, scope: 'admin' })
      .expect(400);
    expect(res.body).toMatchObject({ code: 'validation_failed', details: [expect.objectContaining({ message: expect.stringContaining('"scope"') })] });
  });

  it("an anonymous Idempotency-Key too short to be secret is refused before anything is stored: a guessable key cannot fetch another caller's stream token (finding 5c)", async () => {
    const quotes = async () => (await env.db.query(`SELECT count(*)::int AS n FROM quotes`))[0].n as number;
    const before = await quotes();
    const res = await request(app).post('/api/quote').set('Idempotency-Key', 'retry-1').send(quoteBody(randomAddress(), STRATEGY_ROWS[0].legs)).expect(400);
    expect(res.body).toMatchObject({ code: 'validation_failed', details: [expect.objectContaining({ path: 'Idempotency-Key' })] });
    expect(await quotes()).toBe(before);
    // A random key replays to its holder; a caller with a credential keeps any key (its scope is the credential).
    const key = crypto.randomUUID();
    const body = quoteBody(randomAddress(), STRATEGY_ROWS[1].legs);
    const first = await request(app).post('/api/quote').set('Idempotency-Key', key).send(body).expect(201);
    const again = await request(app).post('/api/quote').set('Idempotency-Key', key).send(body).expect(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.stream_token).toBe(first.body.stream_token);
  });

  it('a raw taker API key is refused as the bearer of POST /api/quote and POST /api/orders, naming what to use', async () => {
    const quote = await request(app).post('/api/quote').set(bearer(takerSecret)).send(quoteBody(randomAddress(), STRATEGY_ROWS[0].legs)).expect(401);
    expect(quote.body.code).toBe('taker_key_not_a_bearer');
    expect(quote.body.error).toContain('POST /api/taker/delegate');
    const order = await request(app).post('/api/orders').set(bearer(takerSecret)).send(orderBody(randomAddress())).expect(401);
    expect(order.body.code).toBe('taker_key_not_a_bearer');
    // The key still mints delegates, and a delegate creates the quote.
    const delegate = (
      await request(app).post('/api/taker/delegate').set(bearer(takerSecret)).send({ address: newWallet().address, expires_in: 60 }).expect(200)
    ).body.token;
    await request(app).post('/api/quote').set(bearer(delegate)).send(quoteBody(randomAddress(), STRATEGY_ROWS[0].legs)).expect(201);
  });
});
