import { randomBytes } from 'node:crypto';
import calculateSlot from 'cluster-key-slot';
import type { Express } from 'express';
import { createApp } from '../../../api/app';
import type { ApiContext } from '../../../api/context';
import { WriteBudgets } from '../../../api/auth/write-budgets';
import type { Config } from '../../../shared/platform/config';
import { NetworksService } from '../../../shared/networks';
import { luaScript, primaryNodes } from '../../../shared/platform/redis';
import { networkFile, randomAddress } from '../../support/fixtures';
import { buildApp, request } from '../../support/http';
import { budgetCounters, rateLimitCommandsDuring, withClockAhead, type BudgetDelegate } from '../../support/budget-probes';
import { redisMonitor, type MonitoredCommand } from '../../support/redis-monitor';
import { createTestEnv, type TestEnv } from '../../support/test-env';
import { bearer, newWallet, signIn } from '../../support/wallets';

const ORIGIN = 'https://app.example';
/** The route these tests call: `GET /api/clob/:address/fills`, its budgets the family `getClobFills:explore`. */
const FAMILY = 'getClobFills:explore';
type Limit = 'EXPLORE_RATE_LIMIT_PER_IP' | 'EXPLORE_RATE_LIMIT';

/**
 * Issue #41: the Explore gate charges a request's budgets (its client IP's, then, once the
 * credential and geoblock checks admit it, each credential bucket it spends from) in one Redis
 * round trip, with the write budgets' script (api/auth/write-budgets.ts), and answers what the two
 * separate charges answered: the same budget refuses with the same 429 (`limit` naming it) and
 * Retry-After, in the spec's order. Counters are read back from Redis; round trips are counted on
 * a MONITOR connection.
 */
describe('Explore budgets charged in one round trip', () => {
  let env: TestEnv;
  let app: Express;
  let adminToken: string;
  let orgId: string;
  let prefixes = 0;
  let monitor: { close(): void } | undefined;
  const seen: MonitoredCommand[] = [];
  const PAIR = randomAddress();

  /** A replica with these limits under a Redis prefix of its own. */
  function replica(overrides: Partial<Config>): { app: Express; ctx: ApiContext; prefix: string } {
    const prefix = `${env.config.REDIS_PREFIX}egb${++prefixes}:`;
    const built = createApp({ ...env, config: Object.freeze({ ...env.config, TRUST_PROXY_HOPS: 1, REDIS_PREFIX: prefix, ...overrides }) });
    return { ...built, prefix };
  }

  /** The Explore gate's 429 naming `limit`; Retry-After within `[min, max]` seconds. */
  function expect429(res: request.Response, limit: Limit, [min, max] = [1, 60]): void {
    expect(res.status).toBe(429);
    expect(res.body).toEqual({ error: 'too many requests', code: 'rate_limited', limit, request_id: expect.any(String) });
    const retry = Number(res.headers['retry-after']);
    expect(retry).toBeGreaterThanOrEqual(min);
    expect(retry).toBeLessThanOrEqual(max);
  }

  function refused(res: request.Response, status: number, error: string): void {
    expect(res.status).toBe(status);
    expect(res.body).toEqual({ error, code: expect.any(String), request_id: expect.any(String) });
  }

  const fillsFrom = (a: Express, ip: string, extra: Record<string, string> = {}) =>
    request(a).get(`/api/clob/${PAIR}/fills?chain_id=31337`).set('X-Forwarded-For', ip).set(extra);

  /** A forged maker-key secret: were the gate to resolve it, each would cost a database lookup. */
  const forgedKey = () => `mk_${randomBytes(16).toString('hex')}_${randomBytes(32).toString('base64url')}`;

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

  /** The family's counters under `prefix` (the limits do not matter to `key`). */
  const budgetsUnder = (prefix: string) => new WriteBudgets(env.redis, prefix, FAMILY, { perIp: 1, perCredential: 1, windowSeconds: 60 });

  /** The counters of a request's budgets for this delegate and IP bucket. */
  const counters = (prefix: string, ip: string, d: BudgetDelegate) => budgetCounters(env.redis, budgetsUnder(prefix), ip, d);

  /** Rate-limit commands Redis received under `prefix` while `run` ran. */
  const commandsDuring = (prefix: string, run: () => Promise<void>) => rateLimitCommandsDuring(env.redis, seen, prefix, run);

  beforeAll(async () => {
    env = await createTestEnv({ CORS_ORIGINS: ORIGIN, GEOBLOCK_COUNTRIES: 'KP,IR' });
    ({ app } = buildApp(env));
    await new NetworksService(env.db).upsertNetwork(networkFile(31337));
    // A pair the indexer would have found: the route answers it (an empty page) once the gate lets a request through.
    await env.db.query(
      `INSERT INTO indexer_pairs (chain_id, address, factory, token0, token1, premium_token, created_block, created_block_hash, created_log_index, tx_hash)
       VALUES (31337, $1, $2, $3, $4, $4, 1, $5, 0, $5)`,
      [PAIR, randomAddress(), randomAddress(), randomAddress(), `0x${'ab'.repeat(32)}`],
    );
    const admin = newWallet();
    adminToken = await signIn(app, admin);
    orgId = (await buildApp(env).ctx.services.identity.orgs.create({ kind: 'taker', name: 'Explore Integrations', owner: admin.address })).id;
    // Loaded once, so EVALSHA finds it and each charge below is one command.
    await env.redis.script('LOAD', luaScript('write-budgets-charge').source);
    const node = primaryNodes(env.redis)[0];
    monitor = await redisMonitor(node.options.host ?? '127.0.0.1', node.options.port ?? 6379, (c) => seen.push(c));
  });
  afterAll(async () => {
    monitor?.close();
    await env?.close();
  });

  it('a keyed delegate’s request charges the IP, the delegate and its taker key in one Redis command, all in one cluster slot', async () => {
    const limited = replica({});
    const d = await keyedDelegate();
    const commands = await commandsDuring(limited.prefix, async () => {
      await fillsFrom(limited.app, '198.51.100.1', bearer(d.token)).expect(200);
    });
    expect(commands).toHaveLength(1);
    expect(commands[0][0].toUpperCase()).toBe('EVALSHA');
    const keys = [
      `${limited.prefix}rl:{${FAMILY}}:ip:ip:198.51.100.1`,
      `${limited.prefix}rl:{${FAMILY}}:credential:delegate:${d.org}:${d.address}`,
      `${limited.prefix}rl:{${FAMILY}}:credential:taker_key:${d.keyId}`,
    ];
    expect(commands[0].slice(2, 6)).toEqual(['3', ...keys]);
    // The family's hash tag: on a Redis Cluster one master runs the script.
    expect(new Set(keys.map((k) => calculateSlot(k))).size).toBe(1);
    expect(await counters(limited.prefix, 'ip:198.51.100.1', d)).toEqual({ ip: 1, delegate: 1, key: 1 });
  });

  it('a SIWE session’s request charges the IP and the wallet in one command; one the credential or geoblock check refuses, the IP alone in one', async () => {
    const limited = replica({});
    const wallet = newWallet();
    const session = await signIn(app, wallet);
    const withSession = await commandsDuring(limited.prefix, async () => {
      await fillsFrom(limited.app, '198.51.100.3', { ...bearer(session), Origin: ORIGIN }).expect(200);
    });
    expect(withSession).toHaveLength(1);
    expect(withSession[0].slice(3, 5)).toEqual([
      `${limited.prefix}rl:{${FAMILY}}:ip:ip:198.51.100.3`,
      `${limited.prefix}rl:{${FAMILY}}:credential:wallet:${wallet.address.toLowerCase()}`,
    ]);

    const withoutBearer = await commandsDuring(limited.prefix, async () => {
      refused(await fillsFrom(limited.app, '198.51.100.4'), 401, 'siwe or taker delegate required');
    });
    expect(withoutBearer).toHaveLength(1);
    expect(withoutBearer[0].slice(2, 4)).toEqual(['3', `${limited.prefix}rl:{${FAMILY}}:ip:ip:198.51.100.4`]);
    // The script is told one budget: the places left unused repeat the IP's counter, charged once.
    expect(await env.redis.get(budgetsUnder(limited.prefix).key('ip', 'ip:198.51.100.4'))).toBe('1');

    const d = await keyedDelegate();
    const blocked = await commandsDuring(limited.prefix, async () => {
      refused(await fillsFrom(limited.app, '198.51.100.5', { ...bearer(d.token), 'CF-IPCountry': 'KP' }), 403, 'explore is not available in your region');
    });
    expect(blocked).toHaveLength(1);
    expect(await counters(limited.prefix, 'ip:198.51.100.5', d)).toEqual({ ip: 1, delegate: 0, key: 0 });
  });

  it('the IP budget refuses first: 429 naming EXPLORE_RATE_LIMIT_PER_IP, no credential charged; past it a missing bearer or a listed country is told 429, not 401 or 403', async () => {
    const limited = replica({ EXPLORE_RATE_LIMIT_PER_IP: 1, EXPLORE_RATE_LIMIT: 10 });
    const d = await keyedDelegate();
    await fillsFrom(limited.app, '198.51.100.11', bearer(d.token)).expect(200);
    expect429(await fillsFrom(limited.app, '198.51.100.11', bearer(d.token)), 'EXPLORE_RATE_LIMIT_PER_IP');
    expect(await counters(limited.prefix, 'ip:198.51.100.11', d)).toEqual({ ip: 2, delegate: 1, key: 1 });
    // From another address the same delegate still has budget.
    await fillsFrom(limited.app, '198.51.100.12', bearer(d.token)).expect(200);

    refused(await fillsFrom(limited.app, '198.51.100.13'), 401, 'siwe or taker delegate required');
    expect429(await fillsFrom(limited.app, '198.51.100.13'), 'EXPLORE_RATE_LIMIT_PER_IP');
    refused(await fillsFrom(limited.app, '198.51.100.14', { ...bearer(d.token), 'CF-IPCountry': 'IR' }), 403, 'explore is not available in your region');
    expect429(await fillsFrom(limited.app, '198.51.100.14', { ...bearer(d.token), 'CF-IPCountry': 'IR' }), 'EXPLORE_RATE_LIMIT_PER_IP');
  });

  it('the delegate’s own budget refuses: 429 naming EXPLORE_RATE_LIMIT; the IP is charged, the taker key after it is not', async () => {
    const limited = replica({ EXPLORE_RATE_LIMIT_PER_IP: 10, EXPLORE_RATE_LIMIT: 1 });
    const d = await keyedDelegate();
    await fillsFrom(limited.app, '198.51.100.21', bearer(d.token)).expect(200);
    expect429(await fillsFrom(limited.app, '198.51.100.22', bearer(d.token)), 'EXPLORE_RATE_LIMIT');
    expect(await counters(limited.prefix, 'ip:198.51.100.22', d)).toEqual({ ip: 1, delegate: 2, key: 1 });
    // The refusal is the credential's: another caller from that address is not refused.
    await fillsFrom(limited.app, '198.51.100.22', { ...bearer(await signIn(app, newWallet())), Origin: ORIGIN }).expect(200);
  });

  it('the taker key’s budget refuses: the IP and the delegate are charged, and Retry-After is the key window’s', async () => {
    const limited = replica({ EXPLORE_RATE_LIMIT_PER_IP: 10, EXPLORE_RATE_LIMIT: 5 });
    const d = await keyedDelegate();
    // The key's window is spent and ends in 40 s; the IP's and the delegate's start now (60 s).
    await env.redis.set(budgetsUnder(limited.prefix).key('credential', `taker_key:${d.keyId}`), '5', 'EX', 40);
    // Not the 60 s of the IP's or the delegate's window (a loaded machine may take seconds to get here).
    expect429(await fillsFrom(limited.app, '198.51.100.31', bearer(d.token)), 'EXPLORE_RATE_LIMIT', [20, 40]);
    expect(await counters(limited.prefix, 'ip:198.51.100.31', d)).toEqual({ ip: 1, delegate: 1, key: 6 });
  });

  it('a client IP refused is refused from memory until its window ends: no Redis call, no bearer lookup, then charged again', async () => {
    // A window no request of this test outlives, however slow the machine: its end is reached by
    // moving this process's clock past it, not by waiting.
    const WINDOW_SECONDS = 600;
    const limited = replica({ EXPLORE_RATE_LIMIT_PER_IP: 1, EXPLORE_RATE_WINDOW_SECONDS: WINDOW_SECONDS });
    const from = '198.51.100.41';
    const d = await keyedDelegate();
    refused(await fillsFrom(limited.app, from), 401, 'siwe or taker delegate required');
    expect429(await fillsFrom(limited.app, from, bearer('forged.jwt.value')), 'EXPLORE_RATE_LIMIT_PER_IP', [1, WINDOW_SECONDS]);
    const lookups = jest.spyOn(limited.ctx.services.identity, 'resolveBearer');
    try {
      const during = await commandsDuring(limited.prefix, async () => {
        // A forged JWT, a forged key secret and a valid delegate alike: the address's budget comes first.
        for (const who of ['forged.jwt.value', forgedKey(), d.token])
          expect429(await fillsFrom(limited.app, from, bearer(who)), 'EXPLORE_RATE_LIMIT_PER_IP', [1, WINDOW_SECONDS]);
      });
      expect(during).toEqual([]);
      expect(lookups).not.toHaveBeenCalled();
      // Another address is not refused by what this one spent.
      await fillsFrom(limited.app, '198.51.100.42', bearer(d.token)).expect(200);
    } finally {
      lookups.mockRestore();
    }
    // Past the window by this process's clock, the address is charged in Redis again: one call,
    // which refuses (Redis's window, on Redis's clock, has not ended).
    await withClockAhead(WINDOW_SECONDS + 1, async () => {
      const after = await commandsDuring(limited.prefix, async () => {
        expect429(await fillsFrom(limited.app, from, bearer(d.token)), 'EXPLORE_RATE_LIMIT_PER_IP', [1, WINDOW_SECONDS]);
      });
      expect(after).toHaveLength(1);
      expect(after[0][0].toUpperCase()).toBe('EVALSHA');
      expect(after[0][3]).toBe(budgetsUnder(limited.prefix).key('ip', `ip:${from}`));
    });
  });

  it('a key secret is never looked up by the gate: forged ones get 401 within the IP budget and 429 past it, with no bearer lookup', async () => {
    const limited = replica({ EXPLORE_RATE_LIMIT_PER_IP: 2 });
    const from = '198.51.100.51';
    const lookups = jest.spyOn(limited.ctx.services.identity, 'resolveBearer');
    try {
      for (let i = 0; i < 2; i++) refused(await fillsFrom(limited.app, from, bearer(forgedKey())), 401, 'siwe or taker delegate required');
      // The first refusal past the budget, from Redis: the address was not yet remembered.
      expect429(await fillsFrom(limited.app, from, bearer(forgedKey())), 'EXPLORE_RATE_LIMIT_PER_IP');
      expect(lookups).not.toHaveBeenCalled();
    } finally {
      lookups.mockRestore();
    }
  });

  it('a replica remembers only its own refusals: another replica on the same budget asks Redis in one command, which refuses too', async () => {
    const shared = `${env.config.REDIS_PREFIX}egbshared${randomBytes(3).toString('hex')}:`;
    const config = () => Object.freeze({ ...env.config, TRUST_PROXY_HOPS: 1, REDIS_PREFIX: shared, EXPLORE_RATE_LIMIT_PER_IP: 1 });
    const r1 = createApp({ ...env, config: config() }).app;
    const r2 = createApp({ ...env, config: config() }).app;
    refused(await fillsFrom(r1, '198.51.100.61'), 401, 'siwe or taker delegate required');
    expect429(await fillsFrom(r1, '198.51.100.61'), 'EXPLORE_RATE_LIMIT_PER_IP');
    const asked = await commandsDuring(shared, async () => {
      expect429(await fillsFrom(r2, '198.51.100.61'), 'EXPLORE_RATE_LIMIT_PER_IP');
    });
    expect(asked).toHaveLength(1);
  });

  it('a store error that is not an outage fails closed: 503 rate_limiter_unavailable', async () => {
    const limited = replica({});
    // A counter that is not a number: the script's INCRBY fails.
    await env.redis.set(budgetsUnder(limited.prefix).key('ip', 'ip:198.51.100.71'), 'not-a-number', 'EX', 60);
    const res = await fillsFrom(limited.app, '198.51.100.71', bearer((await keyedDelegate()).token));
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ error: 'rate limiter unavailable', code: 'rate_limiter_unavailable', request_id: expect.any(String) });
    expect(res.headers['retry-after']).toBe('1');
  });
});
