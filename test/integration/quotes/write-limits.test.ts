import type { Express } from 'express';
import { createApp } from '../../../api/app';
import type { ApiContext } from '../../../api/context';
import type { Config } from '../../../shared/platform/config';
import { NetworksService } from '../../../shared/networks';
import { networkFile, randomAddress } from '../../support/fixtures';
import { buildApp, request } from '../../support/http';
import { quoteBody, STRATEGY_ROWS } from '../../support/quotes';
import { createTestEnv, type TestEnv } from '../../support/test-env';
import { bearer, newWallet, signIn } from '../../support/wallets';

/**
 * Finding 2: quote creation and every other write under /api are limited per client IP and per
 * credential in Redis, so every replica spends from the same budget. Each limited app below has
 * its own Redis prefix, so the setup (done through the default app) never spends from it.
 */
describe('write limits (quote create and every write route)', () => {
  let env: TestEnv;
  let app: Express;
  let ctx: ApiContext;
  let adminToken: string;
  let takerSecret: string;
  let prefixes = 0;

  const body = () => quoteBody(randomAddress(), STRATEGY_ROWS[0].legs);

  /** A replica with these limits; replicas built with the same `prefix` share Redis buckets. */
  function replica(overrides: Partial<Config>, prefix = `${env.config.REDIS_PREFIX}lim${++prefixes}:`): Express {
    return createApp({ ...env, config: Object.freeze({ ...env.config, TRUST_PROXY_HOPS: 1, REDIS_PREFIX: prefix, ...overrides }) }).app;
  }

  function expect429(res: request.Response): void {
    expect(res.status).toBe(429);
    expect(res.body).toEqual({ error: 'too many requests', code: 'rate_limited', request_id: expect.any(String) });
    const retry = Number(res.headers['retry-after']);
    expect(retry).toBeGreaterThanOrEqual(1);
    expect(retry).toBeLessThanOrEqual(60);
  }

  const createFrom = (a: Express, ip: string, extra: Record<string, string> = {}) =>
    request(a).post('/api/quote').set('X-Forwarded-For', ip).set(extra).send(body());

  async function issueKey(name: string): Promise<string> {
    return (await request(app).post('/api/taker/keys').set(bearer(adminToken)).send({ name }).expect(201)).body.secret as string;
  }

  async function mintDelegate(secret = takerSecret): Promise<string> {
    const res = await request(app).post('/api/taker/delegate').set(bearer(secret)).send({ address: newWallet().address, expires_in: 600 }).expect(200);
    return res.body.token as string;
  }

  async function counts(): Promise<Record<string, number>> {
    const [row] = await env.db.query(
      `SELECT (SELECT count(*) FROM quotes)::int AS quotes, (SELECT count(*) FROM quote_legs)::int AS legs,
              (SELECT count(*) FROM idempotency_keys)::int AS idempotency_keys`,
    );
    const jobs = await env.queue.queue('quotes').getJobCounts('waiting', 'delayed', 'active', 'completed', 'failed');
    return { ...row, jobs: Object.values(jobs).reduce((a, b) => a + b, 0) };
  }

  beforeAll(async () => {
    env = await createTestEnv();
    ({ app, ctx } = buildApp(env));
    await new NetworksService(env.db).upsertNetwork(networkFile(31337));
    const admin = newWallet();
    adminToken = await signIn(app, admin);
    await ctx.services.identity.orgs.create({ kind: 'taker', name: 'Limited Integrations', owner: admin.address });
    takerSecret = await issueKey('backend');
  });
  afterAll(() => env.close());

  it('per IP: the create over budget is 429 too many requests with Retry-After, and writes nothing', async () => {
    const limited = replica({ QUOTE_RATE_LIMIT_PER_IP: 2 });
    await createFrom(limited, '198.51.100.7').expect(201);
    await createFrom(limited, '198.51.100.7').expect(201);
    const before = await counts();
    const refused = await createFrom(limited, '198.51.100.7', { 'Idempotency-Key': 'refused-create-000000000000000000000' });
    expect429(refused);
    expect(await counts()).toEqual(before);
  });

  it('different IPs have budgets of their own', async () => {
    const limited = replica({ QUOTE_RATE_LIMIT_PER_IP: 1 });
    await createFrom(limited, '198.51.100.20').expect(201);
    expect429(await createFrom(limited, '198.51.100.20'));
    await createFrom(limited, '198.51.100.21').expect(201);
    await createFrom(limited, '2001:db8:aa::1').expect(201);
  });

  it('IPv6 clients share one budget per /64; the next /64 is another client', async () => {
    const limited = replica({ QUOTE_RATE_LIMIT_PER_IP: 2 });
    await createFrom(limited, '2001:db8:1:2::1').expect(201);
    await createFrom(limited, '2001:db8:1:2:ffff:ffff:ffff:9').expect(201);
    expect429(await createFrom(limited, '2001:0db8:0001:0002:0000:0000:0000:0077'));
    await createFrom(limited, '2001:db8:1:3::1').expect(201);
  });

  it('an IPv4 client counts the same whether it arrives as IPv4 or IPv4-mapped IPv6', async () => {
    const limited = replica({ QUOTE_RATE_LIMIT_PER_IP: 1 });
    await createFrom(limited, '203.0.113.5').expect(201);
    expect429(await createFrom(limited, '::ffff:203.0.113.5'));
  });

  it('per delegate: one delegate spread over many IPs is limited, a delegate of another key is not', async () => {
    const limited = replica({ QUOTE_RATE_LIMIT_PER_CREDENTIAL: 2 });
    const [d1, d2] = [await mintDelegate(await issueKey('first')), await mintDelegate(await issueKey('second'))];
    await createFrom(limited, '198.51.100.31', bearer(d1)).expect(201);
    await createFrom(limited, '198.51.100.32', bearer(d1)).expect(201);
    const before = await counts();
    expect429(await createFrom(limited, '198.51.100.33', bearer(d1)));
    expect(await counts()).toEqual(before);
    await createFrom(limited, '198.51.100.33', bearer(d2)).expect(201);
  });

  it('per taker key: delegates of one key share the key budget, each still under its own', async () => {
    const limited = replica({ QUOTE_RATE_LIMIT_PER_CREDENTIAL: 2 });
    const secret = await issueKey('shared');
    const [a, b] = [await mintDelegate(secret), await mintDelegate(secret)];
    await createFrom(limited, '198.51.100.41', bearer(a)).expect(201);
    await createFrom(limited, '198.51.100.42', bearer(b)).expect(201);
    // b has spent one of its own two, but the key has spent both of its two.
    expect429(await createFrom(limited, '198.51.100.43', bearer(b)));
  });

  it('per taker key on a write route: minting delegates with one key from many IPs', async () => {
    const limited = replica({ WRITE_RATE_LIMIT_PER_CREDENTIAL: 2 });
    const mint = (ip: string) =>
      request(limited).post('/api/taker/delegate').set('X-Forwarded-For', ip).set(bearer(takerSecret)).send({ address: newWallet().address, expires_in: 600 });
    await mint('198.51.100.51').expect(200);
    await mint('198.51.100.52').expect(200);
    expect429(await mint('198.51.100.53'));
  });

  it('every write method under /api spends from the write budget; reads do not', async () => {
    const limited = replica({ WRITE_RATE_LIMIT_PER_IP: 3 });
    const ip = '198.51.100.61';
    await request(limited).post('/api/pubsub/freemium').set('X-Forwarded-For', ip).send({}).expect(401);
    await request(limited).put('/api/maker/organization').set('X-Forwarded-For', ip).send({}).expect(401);
    await request(limited).delete('/api/taker/keys/00000000-0000-4000-8000-000000000000').set('X-Forwarded-For', ip).expect(401);
    for (let i = 0; i < 5; i++) await request(limited).get('/api/networks').set('X-Forwarded-For', ip).expect(200);
    expect429(await request(limited).post('/api/login').set('X-Forwarded-For', ip).send({ message: 'x', signature: '0x00' }));
    expect429(await request(limited).delete('/api/taker/keys/00000000-0000-4000-8000-000000000000').set('X-Forwarded-For', ip));
    // The quote create has its own budget.
    await createFrom(limited, ip).expect(201);
  });

  it('replicas spend from one budget in Redis', async () => {
    const shared = `${env.config.REDIS_PREFIX}shared:`;
    const [r1, r2] = [replica({ QUOTE_RATE_LIMIT_PER_IP: 2 }, shared), replica({ QUOTE_RATE_LIMIT_PER_IP: 2 }, shared)];
    await createFrom(r1, '198.51.100.71').expect(201);
    await createFrom(r2, '198.51.100.71').expect(201);
    expect429(await createFrom(r1, '198.51.100.71'));
    expect429(await createFrom(r2, '198.51.100.71'));
  });

  it('with TRUST_PROXY_HOPS=0 a forged X-Forwarded-For buys no new budget', async () => {
    const direct = replica({ TRUST_PROXY_HOPS: 0, QUOTE_RATE_LIMIT_PER_IP: 1 });
    await createFrom(direct, '198.51.100.81').expect(201);
    expect429(await createFrom(direct, '198.51.100.82'));
  });

  it('behind two proxies (TRUST_PROXY_HOPS=2) the client is the address the outer proxy saw, whatever it forged', async () => {
    const proxied = replica({ TRUST_PROXY_HOPS: 2, QUOTE_RATE_LIMIT_PER_IP: 1 });
    // client -> outer proxy (appends the client) -> inner proxy (appends the outer proxy) -> us:
    // X-Forwarded-For: <whatever the client sent>, <client>, <outer proxy>.
    await createFrom(proxied, '10.9.9.9, 198.51.100.91, 172.16.0.1').expect(201);
    expect429(await createFrom(proxied, '10.9.9.8, 198.51.100.91, 172.16.0.1'));
    await createFrom(proxied, '10.9.9.9, 198.51.100.92, 172.16.0.1').expect(201);
  });
});
