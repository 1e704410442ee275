import { randomBytes } from 'node:crypto';
import type { Express } from 'express';
import { createApp } from '../../../api/app';
import { exploreGate, routeAuth } from '../../../api/auth';
import type { ApiContext } from '../../../api/context';
import type { Config } from '../../../shared/platform/config';
import { startChallengeServer, type ChallengeServer } from '../../support/challenge-server';
import { buildApp, request } from '../../support/http';
import { createTestEnv, type TestEnv } from '../../support/test-env';
import { bearer, newWallet, signedKeyAdd, signIn, signStatement } from '../../support/wallets';
import { probeApp } from './probe-app';

const ORIGIN = 'https://app.example';

function gateApp(ctx: ApiContext): Express {
  return probeApp(
    ctx,
    {
      '/explore/clob': [exploreGate(ctx, 'explore-clob')],
      '/explore/loan': routeAuth(ctx, 'explore', 'explore-loan'),
      '/quote': routeAuth(ctx, 'create_quote'),
    },
    { trustProxy: 1 },
  );
}

function refused(res: request.Response, status: number, error: string): void {
  expect(res.status).toBe(status);
  expect(res.body).toEqual({ error, code: expect.any(String), request_id: expect.any(String) });
}

describe('Explore gate and bot challenge', () => {
  let env: TestEnv;
  let ctx: ApiContext;
  let app: Express;
  let gate: Express;
  let challenge: ChallengeServer;
  let session: string;
  let keyedDelegate: string;
  let adminDelegate: string;
  let takerSecret: string;
  let makerSecret: string;

  /** Same database and Redis, different configuration: a fresh app and gate. */
  function gateWith(overrides: Partial<Config>): Express {
    return gateApp(createApp({ ...env, config: Object.freeze({ ...env.config, ...overrides }) }).ctx);
  }

  beforeAll(async () => {
    challenge = await startChallengeServer();
    env = await createTestEnv({
      CHALLENGE_SECRET: challenge.secret,
      CHALLENGE_VERIFY_URL: challenge.url,
      CHALLENGE_TIMEOUT_MS: '300',
      CORS_ORIGINS: `${ORIGIN},https://other.example`,
      GEOBLOCK_COUNTRIES: 'KP,IR',
    });
    ({ app, ctx } = buildApp(env));
    gate = gateApp(ctx);
    const { orgs } = ctx.services.identity;

    session = await signIn(app, newWallet());
    const takerAdmin = newWallet();
    const takerAdminToken = await signIn(app, takerAdmin);
    const takerOrg = await orgs.create({ kind: 'taker', name: 'Integrator', owner: takerAdmin.address });
    takerSecret = (await request(app).post('/api/taker/keys').set(bearer(takerAdminToken)).send({ name: 'backend' }).expect(201)).body.secret;
    keyedDelegate = (
      await request(app).post('/api/taker/delegate').set(bearer(takerSecret)).send({ address: newWallet().address, expires_in: 600 }).expect(200)
    ).body.token;
    const user = newWallet().address;
    const signed = await signStatement(takerAdmin, { kind: 'taker', action: 'mint_delegate', member: user, organization: takerOrg.id, name: 'Integrator' });
    adminDelegate = (
      await request(app)
        .post('/api/taker/delegate')
        .set(bearer(takerAdminToken))
        .send({ address: user, expires_in: 600, ...signed })
        .expect(200)
    ).body.token;

    const makerAdmin = newWallet();
    const makerAdminToken = await signIn(app, makerAdmin);
    const makerOrg = await orgs.create({ kind: 'maker', name: 'Maker', owner: makerAdmin.address });
    const keyAdd = await signedKeyAdd(makerAdmin, newWallet(), { organization: makerOrg.id, name: 'bot' });
    makerSecret = (await request(app).post('/api/maker/keys').set(bearer(makerAdminToken)).send(keyAdd).expect(201)).body.secret;
  });
  afterAll(async () => {
    await env?.close();
    await challenge?.close();
  });

  describe('401 siwe or taker delegate required', () => {
    it.each([
      ['no bearer', () => ({})],
      ['an invalid bearer', () => bearer('nonsense.jwt.value')],
      ['a maker API key', () => bearer(makerSecret)],
      ['a raw taker API key', () => bearer(takerSecret)],
    ])('%s', async (_what, headers) => {
      refused(await request(gate).get('/explore/clob').set(headers()).set('Origin', ORIGIN), 401, 'siwe or taker delegate required');
    });
  });

  it('401 taker API key delegate required: a delegate minted by the admin UI', async () => {
    refused(await request(gate).get('/explore/loan').set(bearer(adminDelegate)), 401, 'taker API key delegate required');
  });

  it('a delegate with key_id passes with no Origin and no challenge', async () => {
    const calls = challenge.calls.length;
    const res = await request(gate).get('/explore/clob').set(bearer(keyedDelegate)).expect(200);
    expect(res.body.principal).toMatchObject({ kind: 'delegate', keyId: expect.any(String) });
    expect(challenge.calls.length).toBe(calls);
  });

  it('403 origin header required, then 403 origin not allowed, on the website path', async () => {
    refused(await request(gate).get('/explore/clob').set(bearer(session)), 403, 'origin header required');
    refused(await request(gate).get('/explore/clob').set(bearer(session)).set('Origin', 'https://evil.example'), 403, 'origin not allowed');
  });

  it('403 challenge verification required: missing, rejected, or for another action', async () => {
    refused(await request(gate).get('/explore/clob').set(bearer(session)).set('Origin', ORIGIN), 403, 'challenge verification required');
    refused(
      await request(gate).get('/explore/clob').set(bearer(session)).set('Origin', ORIGIN).set('X-Challenge-Response', 'forged-token'),
      403,
      'challenge verification required',
    );
    challenge.accept('loan-token', 'explore-loan');
    refused(
      await request(gate).get('/explore/clob').set(bearer(session)).set('Origin', ORIGIN).set('X-Challenge-Response', 'loan-token'),
      403,
      'challenge verification required',
    );
  });

  it('a passing challenge with the route action lets the website through; siteverify gets secret, response and remoteip', async () => {
    challenge.accept('good-token', 'explore-clob');
    const res = await request(gate)
      .get('/explore/clob')
      .set(bearer(session))
      .set('Origin', ORIGIN)
      .set('X-Forwarded-For', '203.0.113.7')
      .set('X-Challenge-Response', 'good-token')
      .expect(200);
    expect(res.body.principal).toMatchObject({ kind: 'siwe' });
    expect(challenge.calls.at(-1)).toEqual({
      secret: challenge.secret,
      response: 'good-token',
      remoteip: '203.0.113.7',
      contentType: expect.stringContaining('application/x-www-form-urlencoded'),
    });
    // A solved token buys one request (Turnstile tokens are single-use): a second use is refused
    // without asking the verifier again, for this action or any other.
    const calls = challenge.calls.length;
    refused(
      await request(gate).get('/explore/clob').set(bearer(session)).set('Origin', 'https://other.example').set('X-Challenge-Response', 'good-token'),
      403,
      'challenge verification required',
    );
    refused(
      await request(gate).get('/explore/loan').set(bearer(session)).set('Origin', ORIGIN).set('X-Challenge-Response', 'good-token'),
      403,
      'challenge verification required',
    );
    expect(challenge.calls.length).toBe(calls);
  });

  it('a verifier that does not answer in time counts as a failed challenge, without hanging', async () => {
    challenge.hang('slow-token');
    const started = Date.now();
    refused(
      await request(gate).get('/explore/clob').set(bearer(session)).set('Origin', ORIGIN).set('X-Challenge-Response', 'slow-token'),
      403,
      'challenge verification required',
    );
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(250);
    expect(elapsed).toBeLessThan(2000);
    expect(challenge.calls.at(-1)?.response).toBe('slow-token');
  });

  it('with no challenge secret the check fails open, but Origin is still required', async () => {
    const open = gateWith({ CHALLENGE_SECRET: undefined });
    const calls = challenge.calls.length;
    await request(open).get('/explore/clob').set(bearer(session)).set('Origin', ORIGIN).expect(200);
    await request(open).get('/quote').expect(200);
    refused(await request(open).get('/explore/clob').set(bearer(session)), 403, 'origin header required');
    expect(challenge.calls.length).toBe(calls);
  });

  it('quote creation: a delegate skips the challenge, anyone else needs one for quote-create when enforced', async () => {
    refused(await request(gate).get('/quote'), 403, 'challenge verification required');
    await request(gate).get('/quote').set(bearer(adminDelegate)).expect(200);
    challenge.accept('quote-token', 'quote-create');
    await request(gate).get('/quote').set('X-Challenge-Response', 'quote-token').expect(200);
  });

  it('geoblocked countries are refused after authentication', async () => {
    const blocked = await request(gate).get('/explore/clob').set(bearer(keyedDelegate)).set('CF-IPCountry', 'kp').expect(403);
    expect(blocked.body.code).toBe('geoblocked');
    refused(await request(gate).get('/explore/clob').set('CF-IPCountry', 'KP'), 401, 'siwe or taker delegate required');
    await request(gate).get('/explore/clob').set(bearer(keyedDelegate)).set('CF-IPCountry', 'US').expect(200);
  });

  describe('429 too many requests (limit 2 per window)', () => {
    let limited: Express;
    let limitedCtx: ApiContext;

    beforeAll(() => {
      const config = {
        ...env.config,
        EXPLORE_RATE_LIMIT: 2,
        EXPLORE_RATE_LIMIT_PER_IP: 2,
        EXPLORE_RATE_WINDOW_SECONDS: 60,
        REDIS_PREFIX: `${env.config.REDIS_PREFIX}explore-rl:`,
      };
      limitedCtx = createApp({ ...env, config: Object.freeze(config) }).ctx;
      limited = gateApp(limitedCtx);
    });

    /** A 429 naming the budget that ran out by its config key. */
    function expect429(res: request.Response, limit: 'EXPLORE_RATE_LIMIT_PER_IP' | 'EXPLORE_RATE_LIMIT'): void {
      expect(res.status).toBe(429);
      expect(res.body).toEqual({ error: 'too many requests', code: 'rate_limited', limit, request_id: expect.any(String) });
      expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(Number(res.headers['retry-after'])).toBeLessThanOrEqual(60);
    }

    it('per IP: three wallets from one address', async () => {
      const tokens = [await signIn(app, newWallet()), await signIn(app, newWallet()), await signIn(app, newWallet())];
      for (const t of tokens.slice(0, 2))
        await request(limited).get('/explore/clob').set(bearer(t)).set('X-Forwarded-For', '198.51.100.1').set('Origin', ORIGIN).expect(403);
      expect429(
        await request(limited).get('/explore/clob').set(bearer(tokens[2])).set('X-Forwarded-For', '198.51.100.1').set('Origin', ORIGIN),
        'EXPLORE_RATE_LIMIT_PER_IP',
      );
    });

    it('per IP, with no database lookup of a bearer: forged bearers from one address get 401 until the budget is spent, then 429', async () => {
      const from = '198.51.100.5';
      // Forged key secrets: the bearers a lookup would cost a database read for. The gate never looks one up.
      const forged = () => `mk_${randomBytes(16).toString('hex')}_${randomBytes(32).toString('base64url')}`;
      const lookups = jest.spyOn(limitedCtx.services.identity, 'resolveBearer');
      try {
        for (let i = 0; i < 2; i++)
          refused(await request(limited).get('/explore/clob').set(bearer(forged())).set('X-Forwarded-For', from), 401, 'siwe or taker delegate required');
        expect429(await request(limited).get('/explore/clob').set(bearer(forged())).set('X-Forwarded-For', from), 'EXPLORE_RATE_LIMIT_PER_IP');
        // A valid credential from that address waits too, and is not looked up: the address, refused, is remembered until its window ends.
        expect429(await request(limited).get('/explore/clob').set(bearer(keyedDelegate)).set('X-Forwarded-For', from), 'EXPLORE_RATE_LIMIT_PER_IP');
        expect(lookups).not.toHaveBeenCalled();
      } finally {
        lookups.mockRestore();
      }
    });

    it('per wallet: one session from three addresses (and before the access check)', async () => {
      const t = await signIn(app, newWallet());
      for (const ip of ['198.51.100.11', '198.51.100.12'])
        refused(await request(limited).get('/explore/clob').set(bearer(t)).set('X-Forwarded-For', ip), 403, 'origin header required');
      expect429(await request(limited).get('/explore/clob').set(bearer(t)).set('X-Forwarded-For', '198.51.100.13'), 'EXPLORE_RATE_LIMIT');
    });

    it('per taker key: three delegates of one key from three addresses', async () => {
      const delegates: string[] = [];
      for (let i = 0; i < 3; i++) {
        delegates.push(
          (await request(app).post('/api/taker/delegate').set(bearer(takerSecret)).send({ address: newWallet().address, expires_in: 600 }).expect(200)).body
            .token,
        );
      }
      await request(limited).get('/explore/clob').set(bearer(delegates[0])).set('X-Forwarded-For', '198.51.100.21').expect(200);
      await request(limited).get('/explore/loan').set(bearer(delegates[1])).set('X-Forwarded-For', '198.51.100.22').expect(200);
      expect429(await request(limited).get('/explore/clob').set(bearer(delegates[2])).set('X-Forwarded-For', '198.51.100.23'), 'EXPLORE_RATE_LIMIT');
    });

    it("per minting organization and wallet: org A's delegates spend neither the wallet's own budget nor org B's delegates' for that wallet", async () => {
      const user = newWallet();
      const own = await signIn(app, user);
      const keyOf = async (name: string) => {
        const admin = newWallet();
        const adminToken = await signIn(app, admin);
        await ctx.services.identity.orgs.create({ kind: 'taker', name, owner: admin.address });
        return (await request(app).post('/api/taker/keys').set(bearer(adminToken)).send({ name: 'backend' }).expect(201)).body.secret as string;
      };
      const mint = async (secret: string) =>
        (await request(app).post('/api/taker/delegate').set(bearer(secret)).send({ address: user.address, expires_in: 600 }).expect(200)).body.token as string;
      const [keyA, keyB] = [await keyOf('Org A'), await keyOf('Org B')];
      // Org A mints two delegates for the wallet (minting more buys nothing) and spends its budget for it.
      const [a1, a2] = [await mint(keyA), await mint(keyA)];
      let ip = 30;
      const from = () => `198.51.100.${++ip}`;
      await request(limited).get('/explore/clob').set(bearer(a1)).set('X-Forwarded-For', from()).expect(200);
      await request(limited).get('/explore/clob').set(bearer(a2)).set('X-Forwarded-For', from()).expect(200);
      expect429(await request(limited).get('/explore/clob').set(bearer(a1)).set('X-Forwarded-For', from()), 'EXPLORE_RATE_LIMIT');
      // Org B's delegate for the same wallet has its whole budget...
      const b = await mint(keyB);
      for (let i = 0; i < 2; i++) await request(limited).get('/explore/clob').set(bearer(b)).set('X-Forwarded-For', from()).expect(200);
      expect429(await request(limited).get('/explore/clob').set(bearer(b)).set('X-Forwarded-For', from()), 'EXPLORE_RATE_LIMIT');
      // ...and so has the wallet's own session (403 here: past the limit, for want of an Origin; a 429 would mean spent).
      for (let i = 0; i < 2; i++)
        refused(await request(limited).get('/explore/clob').set(bearer(own)).set('X-Forwarded-For', from()), 403, 'origin header required');
      expect429(await request(limited).get('/explore/clob').set(bearer(own)).set('X-Forwarded-For', from()), 'EXPLORE_RATE_LIMIT');
    });
  });
});
