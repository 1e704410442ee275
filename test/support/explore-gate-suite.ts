import type { Express } from 'express';
import { createApp } from '../../api/app';
import type { ExploreAction } from '../../api/auth';
import type { NamedRouteSpec } from '../../api/http/route-spec';
import { API_ROUTES } from '../../api/routes/route-table';
import type { Config } from '../../shared/platform/config';
import { NetworksService } from '../../shared/networks';
import { startChallengeServer, type ChallengeServer } from './challenge-server';
import { exploreCredentials, type ExploreCredentials } from './explore';
import { exploreGateRows } from './explore-gate-rows';
import { documentedExploreRoutes, EXPLORE_ROUTE_DOCS } from './explore-routes';
import { networkFile } from './fixtures';
import { buildApp, request } from './http';
import { createTestEnv, type TestEnv } from './test-env';
import { bearer, newWallet, signIn } from './wallets';

const ORIGIN = 'https://app.example';

export interface GateSuite {
  action: ExploreAction;
  /** Rows the routes answer once the gate lets a request through (the network 31337 is registered). */
  seed(env: TestEnv): Promise<void>;
  /** One request to `route`, its path parameters and query filled in. */
  call(app: Express, route: NamedRouteSpec): request.Test;
  /** Requests per route and window in the 429 tests. */
  limit: number;
}

/**
 * The Explore gate on every route of one action, row by row of the spec's audience table and
 * Explore error table: the same credential gets the same answer on each route, and each route
 * counts its own `:explore` rate limit per IP, wallet and taker key. The CLOB and loan suites
 * differ only in their routes and what they seed.
 */
export function describeExploreGate(suite: GateSuite): void {
  const ROUTES = API_ROUTES.filter((c) => 'challenge' in c.auth && c.auth.challenge === suite.action);
  /** The action's routes as its doc's Routes table lists them (a new route's row there brings it into this suite). */
  const DOCUMENTED = documentedExploreRoutes(suite.action);
  const successOf = (c: NamedRouteSpec) => Number(Object.keys(c.responses)[0]);
  let env: TestEnv;
  let app: Express;
  let challenge: ChallengeServer;
  let cred: ExploreCredentials;
  let tokens = 0;

  /** A challenge token the verifier accepts once, for `action`. */
  const solved = (action: string): string => {
    const token = `token-${++tokens}`;
    challenge.accept(token, action);
    return token;
  };
  const ROWS = exploreGateRows(suite.action, () => cred, solved, ORIGIN);

  beforeAll(async () => {
    challenge = await startChallengeServer();
    env = await createTestEnv({
      CHALLENGE_SECRET: challenge.secret,
      CHALLENGE_VERIFY_URL: challenge.url,
      CORS_ORIGINS: ORIGIN,
      GEOBLOCK_COUNTRIES: 'KP,IR',
      TRUST_PROXY_HOPS: '1',
      EXPLORE_RATE_LIMIT: '1000',
      EXPLORE_RATE_LIMIT_PER_IP: '1000',
    });
    app = buildApp(env).app;
    await new NetworksService(env.db).upsertNetwork(networkFile(31337));
    await suite.seed(env);
    cred = await exploreCredentials(app, buildApp(env).ctx);
  }, 60_000);

  afterAll(async () => {
    await env?.close();
    await challenge?.close();
  });

  it(`covers the ${DOCUMENTED.length} ${suite.action} routes of ${EXPLORE_ROUTE_DOCS[suite.action]}`, () => {
    expect(ROUTES.map((c) => `${c.method.toUpperCase()} ${c.path}`).sort()).toEqual([...DOCUMENTED].sort());
  });

  describe.each(ROUTES.map((c) => [`${c.method.toUpperCase()} ${c.path}`, c] as const))('%s', (_name, route) => {
    it.each(ROWS.map((r) => [r.audience, r] as const))('%s', async (_audience, row) => {
      const res = await suite.call(app, route).set(row.headers());
      if (row.status === 'success') {
        expect(res.status).toBe(successOf(route));
      } else {
        expect(res.status).toBe(row.status);
        expect(res.body).toEqual({ error: row.error, code: row.code, request_id: expect.any(String) });
      }
    });
  });

  describe(`429 too many requests: each ${suite.action} route its own :explore buckets, per IP (first), per wallet, per delegate and per taker key`, () => {
    const LIMIT = suite.limit;
    let limited: Express;
    let fresh: ExploreCredentials;
    let ip = 0;
    const nextIp = () => `198.51.100.${++ip}`;

    beforeAll(async () => {
      limited = createApp({ ...env, config: Object.freeze({ ...env.config, EXPLORE_RATE_LIMIT: LIMIT, EXPLORE_RATE_LIMIT_PER_IP: LIMIT } as Config) }).app;
      fresh = await exploreCredentials(app, buildApp(env).ctx);
    }, 60_000);

    const tooMany = (res: request.Response, limit: 'EXPLORE_RATE_LIMIT' | 'EXPLORE_RATE_LIMIT_PER_IP' = 'EXPLORE_RATE_LIMIT') => {
      expect(res.status).toBe(429);
      expect(res.body).toEqual({ error: 'too many requests', code: 'rate_limited', limit, request_id: expect.any(String) });
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    };

    it('a route spends only its own bucket: one delegate exhausts every route in turn, each after the limit', async () => {
      const who = bearer(fresh.otherKeyDelegate);
      for (const route of ROUTES) {
        // A new IP each time: the delegate's bucket runs out, not an address's.
        for (let i = 0; i < LIMIT; i++) expect((await suite.call(limited, route).set(who).set('X-Forwarded-For', nextIp())).status).toBe(successOf(route));
        tooMany(await suite.call(limited, route).set(who).set('X-Forwarded-For', nextIp()));
      }
    });

    it('per wallet: one SIWE wallet from a new IP each time', async () => {
      const session = await signIn(app, newWallet());
      const route = ROUTES[0]!;
      const headers = () => ({ ...bearer(session), Origin: ORIGIN, 'X-Challenge-Response': solved(suite.action), 'X-Forwarded-For': nextIp() });
      for (let i = 0; i < LIMIT; i++) expect((await suite.call(limited, route).set(headers())).status).toBe(successOf(route));
      tooMany(await suite.call(limited, route).set(headers()));
    });

    it('per IP: a new wallet each time from one IP', async () => {
      const from = nextIp();
      const route = ROUTES[1]!;
      for (let i = 0; i <= LIMIT; i++) {
        const session = await signIn(app, newWallet());
        const res = await suite
          .call(limited, route)
          .set({ ...bearer(session), Origin: ORIGIN, 'X-Challenge-Response': solved(suite.action), 'X-Forwarded-For': from });
        if (i < LIMIT) expect(res.status).toBe(successOf(route));
        else tooMany(res, 'EXPLORE_RATE_LIMIT_PER_IP');
      }
    });

    it('per IP before the bearer: forged bearers from one IP get 401 until the budget is spent, then 429 naming EXPLORE_RATE_LIMIT_PER_IP', async () => {
      const from = nextIp();
      const route = ROUTES[3 % ROUTES.length]!;
      for (let i = 0; i < LIMIT; i++) {
        const res = await suite.call(limited, route).set({ ...bearer(`forged-${i}`), 'X-Forwarded-For': from });
        expect(res.status).toBe(401);
        expect(res.body).toMatchObject({ error: 'siwe or taker delegate required', code: 'explore_auth_required' });
      }
      tooMany(await suite.call(limited, route).set({ ...bearer(`forged-${LIMIT}`), 'X-Forwarded-For': from }), 'EXPLORE_RATE_LIMIT_PER_IP');
    });

    it('per taker key: delegates of one key for two wallets, each request from its own IP', async () => {
      const route = ROUTES[2]!;
      // Neither wallet nor IP reaches the limit; the key they share does.
      const ofKey = [fresh.keyedDelegate, fresh.keyedDelegate2];
      for (let i = 0; i < LIMIT; i++)
        expect(
          (
            await suite
              .call(limited, route)
              .set(bearer(ofKey[i % 2]!))
              .set('X-Forwarded-For', nextIp())
          ).status,
        ).toBe(successOf(route));
      tooMany(
        await suite
          .call(limited, route)
          .set(bearer(ofKey[LIMIT % 2]!))
          .set('X-Forwarded-For', nextIp()),
      );
    });
  });
}
