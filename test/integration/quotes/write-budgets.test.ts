import { randomBytes } from 'node:crypto';
import type { Express } from 'express';
import { createApp } from '../../../api/app';
import type { ApiContext } from '../../../api/context';
import { WriteBudgets } from '../../../api/auth/write-budgets';
import type { Config } from '../../../shared/platform/config';
import { NetworksService } from '../../../shared/networks';
import { luaScript, primaryNodes } from '../../../shared/platform/redis';
import { networkFile, randomAddress } from '../../support/fixtures';
import { buildApp, request } from '../../support/http';
import { quoteBody, STRATEGY_ROWS } from '../../support/quotes';
import { budgetCounters, rateLimitCommandsDuring, withClockAhead, type BudgetDelegate } from '../../support/budget-probes';
import { redisMonitor, type MonitoredCommand } from '../../support/redis-monitor';
import { createTestEnv, type TestEnv } from '../../support/test-env';
import { bearer, newWallet, signIn } from '../../support/wallets';

/**
 * Issue #41: a write's budgets (its client IP's, then each credential bucket it spends from) are
 * charged in one Redis round trip (api/auth/write-budgets.ts), with what the separate charges
 * did: the same budget refuses with the same 429 and Retry-After, a budget after the one that
 * refused is not charged, one before it is. Counters are read back from Redis; round trips are
 * counted on a MONITOR connection.
 */
describe('write budgets charged in one round trip', () => {
  let env: TestEnv;
  let app: Express;
  let adminToken: string;
  let orgId: string;
  let prefixes = 0;
  let monitor: { close(): void } | undefined;
  const seen: MonitoredCommand[] = [];

  const body = () => quoteBody(randomAddress(), STRATEGY_ROWS[0].legs);

  /** A replica with these limits under a Redis prefix of its own. */
  function replica(overrides: Partial<Config>): { app: Express; ctx: ApiContext; prefix: string } {
    const prefix = `${env.config.REDIS_PREFIX}wb${++prefixes}:`;
    const built = createApp({ ...env, config: Object.freeze({ ...env.config, TRUST_PROXY_HOPS: 1, REDIS_PREFIX: prefix, ...overrides }) });
    return { ...built, prefix };
  }

  /** The 429 of the write limits (test/integration/quotes/write-limits.test.ts); Retry-After within `[min, max]` seconds. */
  function expect429(res: request.Response, [min, max] = [1, 60]): void {
    expect(res.status).toBe(429);
    expect(res.body).toEqual({ error: 'too many requests', code: 'rate_limited', request_id: expect.any(String) });
    const retry = Number(res.headers['retry-after']);
    expect(retry).toBeGreaterThanOrEqual(min);
    expect(retry).toBeLessThanOrEqual(max);
  }

  const createFrom = (a: Express, ip: string, extra: Record<string, string> = {}) =>
    request(a).post('/api/quote').set('X-Forwarded-For', ip).set(extra).send(body());

  async function keyedDelegate(): Promise<{ token: string; keyId: string; org: string; address: string }> {
    const key = (
      await request(app)
        .post('/api/taker/keys')
        .set(bearer(adminToken))
        .send({ name: `k${randomBytes(4).toString('hex')}` })
        .expect(201)
    ).body;
    const address = newWallet().address;
    const res = await request(app)
      .post('/api/taker/delegate')
      .set(bearer(key.secret as string))
      .send({ address, expires_in: 600 })
      .expect(200);
    return { token: res.body.token as string, keyId: key.id as string, org: orgId, address: address.toLowerCase() };
  }

  /** The counters of a request's budgets for this delegate and IP bucket. */
  const counters = (prefix: string, ip: string, d: BudgetDelegate) =>
    budgetCounters(env.redis, new WriteBudgets(env.redis, prefix, 'quote', { perIp: 1, perCredential: 1, windowSeconds: 60 }), ip, d);

  /** Rate-limit commands Redis received under `prefix` while `run` ran. */
  const commandsDuring = (prefix: string, run: () => Promise<void>) => rateLimitCommandsDuring(env.redis, seen, prefix, run);

  beforeAll(async () => {
    env = await createTestEnv();
    ({ app } = buildApp(env));
    await new NetworksService(env.db).upsertNetwork(networkFile(31337));
    const admin = newWallet();
    adminToken = await signIn(app, admin);
    orgId = (await buildApp(env).ctx.services.identity.orgs.create({ kind: 'taker', name: 'Budgeted Integrations', owner: admin.address })).id;
    // Loaded once, so EVALSHA finds it and each charge below is one command.
    await env.redis.script('LOAD', luaScript('write-budgets-charge').source);
    const node = primaryNodes(env.redis)[0];
    monitor = await redisMonitor(node.options.host ?? '127.0.0.1', node.options.port ?? 6379, (c) => seen.push(c));
  });
  afterAll(async () => {
    monitor?.close();
    await env?.close();
  });

  it('a create with a keyed delegate charges the IP, the delegate and its taker key in one Redis command; without a bearer, the IP in one', async () => {
    const limited = replica({});
    const d = await keyedDelegate();
    const withBearer = await commandsDuring(limited.prefix, async () => {
      await createFrom(limited.app, '198.51.100.1', bearer(d.token)).expect(201);
    });
    expect(withBearer).toHaveLength(1);
    expect(withBearer[0][0].toUpperCase()).toBe('EVALSHA');
    expect(withBearer[0].slice(2, 6)).toEqual([
      '3',
      `${limited.prefix}rl:{quote}:ip:ip:198.51.100.1`,
      `${limited.prefix}rl:{quote}:credential:delegate:${d.org}:${d.address}`,
      `${limited.prefix}rl:{quote}:credential:taker_key:${d.keyId}`,
    ]);
    expect(await counters(limited.prefix, 'ip:198.51.100.1', d)).toEqual({ ip: 1, delegate: 1, key: 1 });

    const withoutBearer = await commandsDuring(limited.prefix, async () => {
      await createFrom(limited.app, '198.51.100.2').expect(201);
    });
    expect(withoutBearer).toHaveLength(1);
    expect(withoutBearer[0][0].toUpperCase()).toBe('EVALSHA');

    // A SIWE session spends from its wallet: two budgets, one command.
    const wallet = newWallet();
    const session = await signIn(app, wallet);
    const withSession = await commandsDuring(limited.prefix, async () => {
      await createFrom(limited.app, '198.51.100.3', bearer(session)).expect(201);
    });
    expect(withSession).toHaveLength(1);
    expect(withSession[0].slice(3, 5)).toEqual([
      `${limited.prefix}rl:{quote}:ip:ip:198.51.100.3`,
      `${limited.prefix}rl:{quote}:credential:wallet:${wallet.address.toLowerCase()}`,
    ]);
  });

  it('the IP budget refuses first: 429, and neither credential bucket is charged', async () => {
    const limited = replica({ QUOTE_RATE_LIMIT_PER_IP: 1, QUOTE_RATE_LIMIT_PER_CREDENTIAL: 10 });
    const d = await keyedDelegate();
    await createFrom(limited.app, '198.51.100.11', bearer(d.token)).expect(201);
    expect429(await createFrom(limited.app, '198.51.100.11', bearer(d.token)));
    expect(await counters(limited.prefix, 'ip:198.51.100.11', d)).toEqual({ ip: 2, delegate: 1, key: 1 });
    // From another address the same delegate still has budget.
    await createFrom(limited.app, '198.51.100.12', bearer(d.token)).expect(201);
  });

  it('the delegate’s own budget refuses: the IP is charged, the taker key after it is not', async () => {
    const limited = replica({ QUOTE_RATE_LIMIT_PER_IP: 10, QUOTE_RATE_LIMIT_PER_CREDENTIAL: 1 });
    const d = await keyedDelegate();
    await createFrom(limited.app, '198.51.100.21', bearer(d.token)).expect(201);
    expect429(await createFrom(limited.app, '198.51.100.22', bearer(d.token)));
    expect(await counters(limited.prefix, 'ip:198.51.100.22', d)).toEqual({ ip: 1, delegate: 2, key: 1 });
    // The refusal is the credential's: another caller from that address is not refused.
    await createFrom(limited.app, '198.51.100.22').expect(201);
  });

  it('the taker key’s budget refuses: the IP and the delegate are charged, and Retry-After is the key window’s', async () => {
    const limited = replica({ QUOTE_RATE_LIMIT_PER_IP: 10, QUOTE_RATE_LIMIT_PER_CREDENTIAL: 5 });
    const d = await keyedDelegate();
    const budgets = new WriteBudgets(env.redis, limited.prefix, 'quote', { perIp: 10, perCredential: 5, windowSeconds: 60 });
    // The key's window is spent and ends in 40 s; the IP's and the delegate's start now (60 s).
    await env.redis.set(budgets.key('credential', `taker_key:${d.keyId}`), '5', 'EX', 40);
    // Not the 60 s of the IP's or the delegate's window (a loaded machine may take seconds to get here).
    expect429(await createFrom(limited.app, '198.51.100.31', bearer(d.token)), [20, 40]);
    expect(await counters(limited.prefix, 'ip:198.51.100.31', d)).toEqual({ ip: 1, delegate: 1, key: 6 });
  });

  it('a client IP refused is refused from memory until its window ends: no Redis call, no bearer lookup, then charged again', async () => {
    // A window no request of this test outlives, however slow the machine: its end is reached by
    // moving this process's clock past it, not by waiting.
    const WINDOW_SECONDS = 600;
    const limited = replica({ QUOTE_RATE_LIMIT_PER_IP: 1, QUOTE_RATE_WINDOW_SECONDS: WINDOW_SECONDS });
    const from = '198.51.100.41';
    // Forged maker-key secrets: each one resolved costs a database lookup.
    const forged = () => `mk_${randomBytes(16).toString('hex')}_${randomBytes(32).toString('base64url')}`;
    await createFrom(limited.app, from).expect(201);
    expect429(await createFrom(limited.app, from, bearer(forged())), [1, WINDOW_SECONDS]);
    const lookups = jest.spyOn(limited.ctx.services.identity, 'resolveBearer');
    try {
      const during = await commandsDuring(limited.prefix, async () => {
        for (let i = 0; i < 3; i++) expect429(await createFrom(limited.app, from, bearer(forged())), [1, WINDOW_SECONDS]);
      });
      expect(during).toEqual([]);
      expect(lookups).not.toHaveBeenCalled();
      // Another address is not refused by what this one spent.
      await createFrom(limited.app, '198.51.100.42').expect(201);
    } finally {
      lookups.mockRestore();
    }
    // Past the window by this process's clock, the address is charged in Redis again: one call,
    // which refuses (Redis's window, on Redis's clock, has not ended).
    await withClockAhead(WINDOW_SECONDS + 1, async () => {
      const after = await commandsDuring(limited.prefix, async () => {
        expect429(await createFrom(limited.app, from), [1, WINDOW_SECONDS]);
      });
      expect(after).toHaveLength(1);
      expect(after[0][0].toUpperCase()).toBe('EVALSHA');
      expect(after[0][3]).toBe(new WriteBudgets(env.redis, limited.prefix, 'quote', { perIp: 1, perCredential: 1, windowSeconds: 60 }).key('ip', `ip:${from}`));
    });
  });

  it('a replica remembers only its own refusals: another replica on the same budget asks Redis, which refuses too', async () => {
    const shared = `${env.config.REDIS_PREFIX}wbshared${randomBytes(3).toString('hex')}:`;
    const config = (a: Partial<Config>) => Object.freeze({ ...env.config, TRUST_PROXY_HOPS: 1, REDIS_PREFIX: shared, QUOTE_RATE_LIMIT_PER_IP: 1, ...a });
    const r1 = createApp({ ...env, config: config({}) }).app;
    const r2 = createApp({ ...env, config: config({}) }).app;
    await createFrom(r1, '198.51.100.51').expect(201);
    expect429(await createFrom(r1, '198.51.100.51'));
    const asked = await commandsDuring(shared, async () => {
      expect429(await createFrom(r2, '198.51.100.51'));
    });
    expect(asked).toHaveLength(1);
  });

  it('a store error that is not an outage fails closed: 503 rate_limiter_unavailable, nothing written', async () => {
    const limited = replica({});
    const budgets = new WriteBudgets(env.redis, limited.prefix, 'quote', { perIp: 1, perCredential: 1, windowSeconds: 60 });
    // A counter that is not a number: the script's INCRBY fails.
    await env.redis.set(budgets.key('ip', 'ip:198.51.100.61'), 'not-a-number', 'EX', 60);
    const [before] = await env.db.query('SELECT count(*)::int AS n FROM quotes');
    const res = await createFrom(limited.app, '198.51.100.61');
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ error: 'rate limiter unavailable', code: 'rate_limiter_unavailable', request_id: expect.any(String) });
    expect(res.headers['retry-after']).toBe('1');
    const [after] = await env.db.query('SELECT count(*)::int AS n FROM quotes');
    expect(after.n).toBe(before.n);
  });

  it('refuses more than two credential buckets (a programming error, not a request’s)', async () => {
    const budgets = new WriteBudgets(env.redis, `${env.config.REDIS_PREFIX}wbx:`, 'quote', { perIp: 1, perCredential: 1, windowSeconds: 60 });
    await expect(budgets.charge('ip:192.0.2.1', ['a', 'b', 'c'])).rejects.toThrow(/at most two credential buckets/);
  });
});
