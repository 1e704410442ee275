import type { Express } from 'express';
import { createApp } from '../../../api/app';
import type { Config } from '../../../shared/platform/config';
import { buildApp, request } from '../../support/http';
import { createTestEnv, type TestEnv } from '../../support/test-env';
import { bearer, fetchNonce, jwtClaims, newWallet, siweMessage, signedLogin, signIn } from '../../support/wallets';

/** The same database and Redis prefix under a different configuration. */
function appWith(env: TestEnv, overrides: Partial<Config>): Express {
  return createApp({ ...env, config: Object.freeze({ ...env.config, ...overrides }) }).app;
}

function rejected(res: request.Response, code: string, text: string | RegExp): void {
  expect(res.status).toBe(401);
  expect(res.body).toEqual({ error: expect.any(String), code, request_id: expect.any(String) });
  expect(res.body.error).toMatch(text);
}

describe('sign-in with Ethereum', () => {
  let env: TestEnv;
  let app: Express;

  beforeAll(async () => {
    env = await createTestEnv({ SIWE_DOMAIN: 'app.example', SIWE_URI: 'https://app.example', SIWE_CHAIN_ID: '31337' });
    app = buildApp(env).app;
  });
  afterAll(() => env.close());

  it('GET /api/login/nonce issues every field of the message, stored in Redis until it expires', async () => {
    const before = Date.now();
    const res = await request(app).get('/api/login/nonce').expect(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toEqual({
      nonce: expect.stringMatching(/^[0-9a-f]{32}$/),
      domain: 'app.example',
      uri: 'https://app.example',
      chain_id: 31337,
      statement: env.config.SIWE_STATEMENT,
      version: '1',
      issued_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      expiration_time: expect.stringMatching(/Z$/),
    });
    const lifetime = Date.parse(res.body.expiration_time) - Date.parse(res.body.issued_at);
    expect(lifetime).toBe(env.config.SIWE_NONCE_TTL_SECONDS * 1000);
    expect(Date.parse(res.body.issued_at)).toBeGreaterThanOrEqual(before - 1);
    const ttl = await env.redis.pttl(`${env.config.REDIS_PREFIX}siwe:nonce:{${res.body.nonce}}`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(lifetime);
    const other = await fetchNonce(app);
    expect(other.nonce).not.toBe(res.body.nonce);
  });

  it('a signed message logs in: a JWT with issuer, audience and typ, then GET /api/me says freemium', async () => {
    const wallet = newWallet();
    const res = await request(app)
      .post('/api/login')
      .send(await signedLogin(app, wallet))
      .expect(200);
    expect(res.body).toEqual({ token: expect.any(String), address: wallet.address, expires_in: env.config.SESSION_TTL_SECONDS });
    const claims = jwtClaims(res.body.token);
    expect(claims).toMatchObject({ typ: 'siwe', sub: wallet.address, iss: env.config.JWT_ISSUER, aud: env.config.JWT_AUDIENCE });
    expect((claims.exp as number) - (claims.iat as number)).toBe(env.config.SESSION_TTL_SECONDS);

    const me = await request(app).get('/api/me').set(bearer(res.body.token)).expect(200);
    expect(me.body).toEqual({ credential: 'siwe', address: wallet.address, tier: 'freemium' });
  });

  it('GET /api/me without a valid bearer is 401', async () => {
    const none = await request(app).get('/api/me').expect(401);
    expect(none.body.code).toBe('wallet_required');
    const forged = await request(app).get('/api/me').set(bearer('eyJhbGciOiJIUzI1NiJ9.eyJ0eXAiOiJzaXdlIn0.AAAA')).expect(401);
    expect(forged.body.code).toBe('wallet_required');
  });

  it('a nonce is usable once', async () => {
    const wallet = newWallet();
    const body = await signedLogin(app, wallet);
    await request(app).post('/api/login').send(body).expect(200);
    rejected(await request(app).post('/api/login').send(body), 'siwe_nonce_used', /already used/);
  });

  it('an unknown nonce is refused', async () => {
    const wallet = newWallet();
    const nonce = { ...(await fetchNonce(app)), nonce: 'ffffffffffffffffffffffffffffffff' };
    const message = siweMessage(nonce, wallet.address);
    rejected(
      await request(app)
        .post('/api/login')
        .send({ message, signature: await wallet.signMessage({ message }) }),
      'siwe_nonce_unknown',
      /unknown sign-in nonce/,
    );
  });

  it('an expired message is refused', async () => {
    const shortLived = appWith(env, { SIWE_NONCE_TTL_SECONDS: 1 });
    const wallet = newWallet();
    const body = await signedLogin(shortLived, wallet);
    await new Promise((r) => setTimeout(r, 1100));
    rejected(await request(shortLived).post('/api/login').send(body), 'siwe_expired', /expired/);
  });

  it('a message whose Not Before lies ahead is refused until then', async () => {
    const wallet = newWallet();
    const notBefore = new Date(Date.now() + 3_600_000).toISOString();
    rejected(
      await request(app)
        .post('/api/login')
        .send(await signedLogin(app, wallet, { notBefore })),
      'siwe_not_yet_valid',
      'sign-in message is not valid yet (Not Before)',
    );
  });

  it('a message for another domain is refused', async () => {
    const wallet = newWallet();
    rejected(
      await request(app)
        .post('/api/login')
        .send(await signedLogin(app, wallet, { domain: 'evil.example' })),
      'siwe_domain_mismatch',
      /domain does not match: expected app\.example/,
    );
  });

  it.each([
    ['URI', { uri: 'https://evil.example' }],
    ['Chain ID', { chainId: 1 }],
    ['statement', { statement: 'Something else.' }],
    ['Issued At', { issuedAt: '2020-01-01T00:00:00.000Z' }],
    ['Expiration Time', { expirationTime: new Date(Date.now() + 3_600_000).toISOString() }],
  ])('a message whose %s differs from the nonce is refused', async (label, overrides) => {
    const wallet = newWallet();
    const res = await request(app)
      .post('/api/login')
      .send(await signedLogin(app, wallet, overrides));
    rejected(res, 'siwe_field_mismatch', new RegExp(`${label} does not match`));
  });

  it('a message altered after signing is refused', async () => {
    const wallet = newWallet();
    const { message, signature } = await signedLogin(app, wallet);
    const withResource = message.replace(/(Expiration Time: .*)$/, '$1\nResources:\n- https://evil.example');
    expect(withResource).not.toBe(message);
    rejected(await request(app).post('/api/login').send({ message: withResource, signature }), 'siwe_bad_signature', /signature does not match/);
    const otherAddress = message.replace(wallet.address, newWallet().address);
    rejected(await request(app).post('/api/login').send({ message: otherAddress, signature }), 'siwe_bad_signature', /signature does not match/);
  });

  it('a message signed by another wallet is refused, and its nonce stays usable by its owner', async () => {
    const wallet = newWallet();
    const nonce = await fetchNonce(app);
    const message = siweMessage(nonce, wallet.address);
    rejected(
      await request(app)
        .post('/api/login')
        .send({ message, signature: await newWallet().signMessage({ message }) }),
      'siwe_bad_signature',
      /signature does not match/,
    );
    await request(app)
      .post('/api/login')
      .send({ message, signature: await wallet.signMessage({ message }) })
      .expect(200);
  });

  it('a message that is not EIP-4361 is 401, a body without fields is 400', async () => {
    rejected(await request(app).post('/api/login').send({ message: 'hello', signature: '0x1234' }), 'siwe_invalid_message', /not a valid EIP-4361/);
    const bad = await request(app).post('/api/login').send({}).expect(400);
    expect(bad.body.details.map((d: { path: string }) => d.path).sort()).toEqual(['message', 'signature']);
  });

  it('nonce and login are rate limited per IP with Retry-After', async () => {
    const limited = appWith(env, { NONCE_RATE_LIMIT: 2, LOGIN_RATE_LIMIT: 2, AUTH_RATE_WINDOW_SECONDS: 30, REDIS_PREFIX: `${env.config.REDIS_PREFIX}rl2:` });
    await request(limited).get('/api/login/nonce').expect(200);
    await request(limited).get('/api/login/nonce').expect(200);
    const third = await request(limited).get('/api/login/nonce').expect(429);
    expect(third.body).toEqual({ error: 'too many requests', code: 'rate_limited', request_id: expect.any(String) });
    expect(Number(third.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(third.headers['retry-after'])).toBeLessThanOrEqual(30);

    for (let i = 0; i < 2; i++) await request(limited).post('/api/login').send({ message: 'x', signature: '0x00' }).expect(401);
    const login = await request(limited).post('/api/login').send({ message: 'x', signature: '0x00' }).expect(429);
    expect(login.headers['retry-after']).toBeDefined();
  });

  it('signIn (the shared test helper) yields a working bearer', async () => {
    const wallet = newWallet();
    const token = await signIn(app, wallet);
    const me = await request(app).get('/api/me').set(bearer(token)).expect(200);
    expect(me.body.address).toBe(wallet.address);
  });
});
