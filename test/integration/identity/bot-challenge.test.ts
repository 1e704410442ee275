import type { Express } from 'express';
import { createApp } from '../../../api/app';
import { routeAuth } from '../../../api/auth';
import type { Config } from '../../../shared/platform/config';
import { startChallengeServer, type ChallengeServer } from '../../support/challenge-server';
import { createTestEnv, type TestEnv } from '../../support/test-env';
import { probeApp } from './probe-app';
import { request } from '../../support/http';

/** The challenge's Redis keys under this deployment's prefix. */
/** The challenge keys under the test's prefix, sorted: Redis lists keys in no fixed order. */
async function challengeKeys(env: TestEnv): Promise<string[]> {
  return (await env.redis.keys(`${env.config.REDIS_PREFIX}*`)).filter((k) => k.includes('challenge')).sort();
}

describe('bot challenge: single-use tokens and the advertised settings', () => {
  let env: TestEnv;
  let challenge: ChallengeServer;
  /** Two API replicas: separate apps and services over one database and one Redis. */
  let replicas: Express[];

  function app(overrides: Partial<Config> = {}): ReturnType<typeof createApp> {
    return createApp({ ...env, config: Object.freeze({ ...env.config, ...overrides }) });
  }

  function quoteGate(): Express {
    const { ctx } = app();
    return probeApp(ctx, { '/quote': routeAuth(ctx, 'create_quote'), '/explore': routeAuth(ctx, 'explore', 'explore-clob') });
  }

  function refused(res: request.Response): void {
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: 'challenge verification required', code: 'challenge_required', request_id: expect.any(String) });
  }

  beforeAll(async () => {
    challenge = await startChallengeServer();
    env = await createTestEnv({ CHALLENGE_SECRET: challenge.secret, CHALLENGE_VERIFY_URL: challenge.url });
    replicas = [quoteGate(), quoteGate()];
  });
  afterAll(async () => {
    await env?.close();
    await challenge?.close();
  });

  it('a solved token is accepted once: a second use on the same or another replica is refused', async () => {
    challenge.accept('token-one', 'quote-create');
    await request(replicas[0]).get('/quote').set('X-Challenge-Response', 'token-one').expect(200);
    refused(await request(replicas[1]).get('/quote').set('X-Challenge-Response', 'token-one'));
    refused(await request(replicas[0]).get('/quote').set('X-Challenge-Response', 'token-one'));
  });

  it('remembers only a hash of the token, under REDIS_PREFIX, for at most the token lifetime', async () => {
    const before = await challengeKeys(env);
    challenge.accept('token-two', 'quote-create');
    await request(replicas[0]).get('/quote').set('X-Challenge-Response', 'token-two').expect(200);
    const added = (await challengeKeys(env)).filter((k) => !before.includes(k));
    expect(added).toHaveLength(1);
    expect(added[0]).not.toContain('token-two');
    const ttl = await env.redis.pttl(added[0]);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(300_000);
  });

  it('concurrent uses of one token: exactly one passes', async () => {
    challenge.accept('token-race', 'quote-create');
    const results = await Promise.all([0, 1, 0, 1, 0, 1].map((i) => request(replicas[i]).get('/quote').set('X-Challenge-Response', 'token-race')));
    expect(results.map((r) => r.status).sort()).toEqual([200, 403, 403, 403, 403, 403]);
    for (const r of results.filter((x) => x.status === 403)) refused(r);
  });

  it('a refused token is not remembered, so it cannot block anyone', async () => {
    const before = await challengeKeys(env);
    refused(await request(replicas[0]).get('/quote').set('X-Challenge-Response', 'never-solved'));
    challenge.accept('wrong-action', 'explore-loan');
    refused(await request(replicas[0]).get('/quote').set('X-Challenge-Response', 'wrong-action'));
    expect(await challengeKeys(env)).toEqual(before);
  });

  it("POST /api/quote checks the widget action its OpenAPI operation names (x-challenge-action), and refuses another action's token", async () => {
    const { app: api } = app();
    const doc = await request(api).get('/api/openapi.json').expect(200);
    const action = doc.body.paths['/api/quote'].post['x-challenge-action'];
    expect(action).toBe('quote-create');
    challenge.accept('solved-for-explore', 'explore-clob');
    refused(await request(api).post('/api/quote').set('X-Challenge-Response', 'solved-for-explore').send({}));
    challenge.accept('solved-for-documented', action);
    // Past the challenge, the empty body is the next thing refused.
    const past = await request(api).post('/api/quote').set('X-Challenge-Response', 'solved-for-documented').send({}).expect(400);
    expect(past.body.code).toBe('validation_failed');
  });

  describe('GET /api/landing-page-settings challenge.enabled: true only with both a site key and a secret', () => {
    it.each([
      ['site key and secret', '0x4AAAAAAAsite', 'a-secret', true],
      ['site key only', '0x4AAAAAAAsite', undefined, false],
      ['secret only', undefined, 'a-secret', false],
      ['neither', undefined, undefined, false],
    ] as const)('%s', async (_what, sitekey, secret, enabled) => {
      const res = await request(app({ CHALLENGE_SITEKEY: sitekey, CHALLENGE_SECRET: secret }).app)
        .get('/api/landing-page-settings')
        .expect(200);
      expect(res.body.challenge).toEqual({ sitekey: sitekey ?? null, enabled });
    });
  });
});
