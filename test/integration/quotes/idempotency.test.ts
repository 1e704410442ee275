import type { Express } from 'express';
import { createApp } from '../../../api/app';
import { NetworksService } from '../../../shared/networks';
import { networkFile, randomAddress } from '../../support/fixtures';
import { buildApp, request } from '../../support/http';
import { quoteBody, STRATEGY_ROWS } from '../../support/quotes';
import { createTestEnv, type TestEnv } from '../../support/test-env';
import { bearer, newWallet, signIn } from '../../support/wallets';

/**
 * Finding 4: an Idempotency-Key belongs to its caller (credential, else client IP). A second
 * caller who sends a known key with the same body gets a quote of its own, never the first
 * taker's stream token or salt; and the stored record holds nothing secret in clear.
 */
describe('Idempotency-Key scoped to the caller', () => {
  let env: TestEnv;
  let app: Express;
  /** Sees X-Forwarded-For, so each test can speak from several client addresses. */
  let proxied: Express;
  let delegates: string[];

  const create = (key: string, body: object, headers: Record<string, string>) =>
    request(proxied).post('/api/quote').set('Idempotency-Key', key).set(headers).send(body);

  beforeAll(async () => {
    env = await createTestEnv();
    let ctx;
    ({ app, ctx } = buildApp(env));
    proxied = createApp({ ...env, config: Object.freeze({ ...env.config, TRUST_PROXY_HOPS: 1 }) }).app;
    await new NetworksService(env.db).upsertNetwork(networkFile(31337));
    const admin = newWallet();
    const adminToken = await signIn(app, admin);
    await ctx.services.identity.orgs.create({ kind: 'taker', name: 'Idempotent Integrations', owner: admin.address });
    const secret = (await request(app).post('/api/taker/keys').set(bearer(adminToken)).send({ name: 'backend' }).expect(201)).body.secret;
    delegates = [];
    for (let i = 0; i < 2; i++) {
      delegates.push(
        (await request(app).post('/api/taker/delegate').set(bearer(secret)).send({ address: newWallet().address, expires_in: 600 }).expect(200)).body.token,
      );
    }
  });
  afterAll(() => env.close());

  it('another IP with the same key and body gets a quote of its own, not the first taker token or salt', async () => {
    const body = quoteBody(randomAddress(), STRATEGY_ROWS[2].legs);
    const first = await create('shared-key-1-00000000000000000000000', body, { 'X-Forwarded-For': '198.51.100.1' }).expect(201);
    const other = await create('shared-key-1-00000000000000000000000', body, { 'X-Forwarded-For': '198.51.100.2' }).expect(201);
    expect(other.headers['idempotent-replayed']).toBeUndefined();
    expect(other.body.quote.id).not.toBe(first.body.quote.id);
    expect(other.body.stream_token).not.toBe(first.body.stream_token);
    expect(other.body.quote.taker_salt).not.toBe(first.body.quote.taker_salt);
    const text = JSON.stringify(other.body);
    expect(text).not.toContain(first.body.stream_token);
    expect(text).not.toContain(first.body.quote.taker_salt.slice(2));
  });

  it('the same caller replays the first response exactly, once', async () => {
    const body = quoteBody(randomAddress(), STRATEGY_ROWS[3].legs);
    const first = await create('retry-1-0000000000000000000000000000', body, { 'X-Forwarded-For': '198.51.100.3' }).expect(201);
    const again = await create('retry-1-0000000000000000000000000000', body, { 'X-Forwarded-For': '198.51.100.3' }).expect(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    const rows = await env.db.query('SELECT count(*)::int AS n FROM quotes WHERE taker_address = $1', [first.body.quote.taker_address]);
    expect(rows[0].n).toBe(1);
  });

  it('an authenticated caller is its credential: one delegate replays from any IP, two delegates on one IP do not share', async () => {
    const body = quoteBody(randomAddress(), STRATEGY_ROWS[4].legs);
    const first = await create('delegate-key-00000000000000000000000', body, { ...bearer(delegates[0]), 'X-Forwarded-For': '198.51.100.4' }).expect(201);
    const moved = await create('delegate-key-00000000000000000000000', body, { ...bearer(delegates[0]), 'X-Forwarded-For': '198.51.100.5' }).expect(201);
    expect(moved.headers['idempotent-replayed']).toBe('true');
    expect(moved.body).toEqual(first.body);
    const other = await create('delegate-key-00000000000000000000000', body, { ...bearer(delegates[1]), 'X-Forwarded-For': '198.51.100.4' }).expect(201);
    expect(other.headers['idempotent-replayed']).toBeUndefined();
    expect(other.body.stream_token).not.toBe(first.body.stream_token);
    expect(other.body.quote.taker_salt).not.toBe(first.body.quote.taker_salt);
    // Nor does the same IP without the credential.
    const anonymous = await create('delegate-key-00000000000000000000000', body, { 'X-Forwarded-For': '198.51.100.4' }).expect(201);
    expect(anonymous.body.stream_token).not.toBe(first.body.stream_token);
  });

  it('a different body under the caller own key is 409 and creates nothing; under another caller key it is a new quote', async () => {
    const ip = { 'X-Forwarded-For': '198.51.100.6' };
    await create('reused-00000000000000000000000000000', quoteBody(randomAddress(), STRATEGY_ROWS[0].legs), ip).expect(201);
    const before = await env.db.query('SELECT count(*)::int AS n FROM quotes');
    const res = await create('reused-00000000000000000000000000000', quoteBody(randomAddress(), STRATEGY_ROWS[1].legs), ip).expect(409);
    expect(res.body).toEqual({
      error: 'Idempotency-Key was already used with a different request body',
      code: 'idempotency_key_reused',
      request_id: expect.any(String),
    });
    expect((await env.db.query('SELECT count(*)::int AS n FROM quotes'))[0].n).toBe(before[0].n);
    await create('reused-00000000000000000000000000000', quoteBody(randomAddress(), STRATEGY_ROWS[1].legs), { 'X-Forwarded-For': '198.51.100.7' }).expect(201);
  });

  it('the stored record carries no stream token, salt, taker, referrer or the raw key in clear', async () => {
    const taker = randomAddress();
    const referrer = randomAddress();
    const first = await create('look-at-me-key-000000000000000000000', quoteBody(taker, STRATEGY_ROWS[5].legs, { referrer }), {
      'X-Forwarded-For': '198.51.100.8',
    }).expect(201);
    const rows: Record<string, unknown>[] = await env.db.query('SELECT * FROM idempotency_keys');
    expect(rows.length).toBeGreaterThan(0);
    const stored = JSON.stringify(rows).toLowerCase();
    for (const secret of [first.body.stream_token, first.body.quote.taker_salt, taker, referrer, 'look-at-me-key-000000000000000000000', '198.51.100.8']) {
      expect(stored).not.toContain(String(secret).toLowerCase().replace(/^0x/, ''));
    }
  });
});
