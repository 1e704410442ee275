import type { Express } from 'express';
import { createApp } from '../../../api/app';
import type { NamedContract } from '../../../api/contract/route-contract';
import { API_ROUTES } from '../../../api/routes/route-registry';
import type { Config } from '../../../shared/platform/config';
import { RegistryService } from '../../../shared/registry';
import { startChallengeServer, type ChallengeServer } from '../../support/challenge-server';
import { exploreCredentials, type ExploreCredentials } from '../../support/explore';
import { exploreGateRows } from '../../support/explore-gate-rows';
import { networkFile, randomAddress } from '../../support/fixtures';
import { buildApp, request } from '../../support/http';
import { createTestEnv, type TestEnv } from '../../support/test-env';
import { bearer, newWallet, signIn } from '../../support/wallets';

/**
 * The Explore gate on every `explore-loan` route, row by row of the spec's audience table and
 * Explore error table: the same credential gets the same answer on each of the nine routes, and
 * each route counts its own `:explore` rate limit per IP, wallet and taker key.
 */
const ORIGIN = 'https://app.example';
const ROUTES = API_ROUTES.filter((c) => 'challenge' in c.auth && c.auth.challenge === 'explore-loan');

const pathOf = (c: NamedContract) => (c.path.includes(':id') ? c.path.replace(':id', '31337-1') : `${c.path}?chain_id=31337`);
const call = (app: Express, c: NamedContract) => (c.method === 'post' ? request(app).post(c.path).send({ chain_id: 31337 }) : request(app).get(pathOf(c)));
const successOf = (c: NamedContract) => Number(Object.keys(c.responses)[0]);

let env: TestEnv;
let app: Express;
let challenge: ChallengeServer;
let cred: ExploreCredentials;
let tokens = 0;

function solved(action: string): string {
  const token = `token-${++tokens}`;
  challenge.accept(token, action);
  return token;
}

const ROWS = exploreGateRows('explore-loan', () => cred, solved, ORIGIN);

beforeAll(async () => {
  challenge = await startChallengeServer();
  env = await createTestEnv({
    CHALLENGE_SECRET: challenge.secret,
    CHALLENGE_VERIFY_URL: challenge.url,
    CORS_ORIGINS: ORIGIN,
    GEOBLOCK_COUNTRIES: 'KP,IR',
    TRUST_PROXY_HOPS: '1',
    EXPLORE_RATE_LIMIT: '1000',
  });
  app = buildApp(env).app;
  await new RegistryService(env.db).upsertNetwork(networkFile(31337));
  // A loan the indexer would have written: the routes answer it once the gate lets them through.
  const [a, b, c, d] = [randomAddress(), randomAddress(), randomAddress(), randomAddress()];
  await env.db.query(
    `INSERT INTO indexer_loans (chain_id, loan_id, market, borrower, lender, collateral_token, collateral_amount, debt_token, principal, principal_outstanding,
       rate_bps, threshold_bps, maturity, state, opened_block, opened_block_hash, opened_log_index, opened_at, tx_hash, last_block, last_log_index)
     VALUES (31337, 1, $1, $2, $3, $4, 1000, $5, 500, 500, 500, 8000, 2000000000, 'active', 1, $6, 0, 1700000000, $6, 1, 0)`,
    [a, b, c, d, randomAddress(), `0x${'ab'.repeat(32)}`],
  );
  cred = await exploreCredentials(app, buildApp(env).ctx);
}, 60_000);

afterAll(async () => {
  await env?.close();
  await challenge?.close();
});

it('covers the nine explore-loan routes of the spec', () => {
  expect(ROUTES.map((c) => `${c.method.toUpperCase()} ${c.path}`).sort()).toEqual(
    [
      'GET /api/explore/loans/summary',
      'GET /api/explore/loans/at-risk',
      'GET /api/explore/loans/recent',
      'GET /api/explore/loans/activity',
      'GET /api/explore/loans/events',
      'POST /api/explore/loans/stream',
      'GET /api/margin/loans',
      'GET /api/margin/loans/:id',
      'GET /api/margin/loans/:id/collateral',
    ].sort(),
  );
});

describe.each(ROUTES.map((c) => [`${c.method.toUpperCase()} ${c.path}`, c] as const))('%s', (_name, route) => {
  it.each(ROWS.map((r) => [r.audience, r] as const))('%s', async (_audience, row) => {
    const res = await call(app, route).set(row.headers());
    if (row.status === 'success') {
      expect(res.status).toBe(successOf(route));
    } else {
      expect(res.status).toBe(row.status);
      expect(res.body).toEqual({ error: row.error, code: expect.any(String), request_id: expect.any(String) });
    }
  });
});

describe('429 too many requests: each loan route its own :explore bucket, per IP, per wallet and per taker key', () => {
  const LIMIT = 2;
  let limited: Express;
  let fresh: ExploreCredentials;
  let ip = 0;
  const nextIp = () => `198.51.100.${++ip}`;

  beforeAll(async () => {
    limited = createApp({ ...env, config: Object.freeze({ ...env.config, EXPLORE_RATE_LIMIT: LIMIT } as Config) }).app;
    fresh = await exploreCredentials(app, buildApp(env).ctx);
  }, 60_000);

  const tooMany = (res: request.Response) => {
    expect(res.status).toBe(429);
    expect(res.body).toEqual({ error: 'too many requests', code: 'rate_limited', request_id: expect.any(String) });
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
  };

  it('a route spends only its own bucket: one delegate exhausts every loan route in turn, each after the limit', async () => {
    const who = bearer(fresh.otherKeyDelegate);
    for (const route of ROUTES) {
      const from = nextIp();
      for (let i = 0; i < LIMIT; i++) expect((await call(limited, route).set(who).set('X-Forwarded-For', from)).status).toBe(successOf(route));
      tooMany(await call(limited, route).set(who).set('X-Forwarded-For', from));
    }
  });

  it('per wallet: one SIWE wallet from a new IP each time', async () => {
    const session = await signIn(app, newWallet());
    const route = ROUTES[0];
    const headers = () => ({ ...bearer(session), Origin: ORIGIN, 'X-Challenge-Response': solved('explore-loan'), 'X-Forwarded-For': nextIp() });
    for (let i = 0; i < LIMIT; i++) expect((await call(limited, route).set(headers())).status).toBe(successOf(route));
    tooMany(await call(limited, route).set(headers()));
  });

  it('per IP: a new wallet each time from one IP', async () => {
    const from = nextIp();
    const route = ROUTES[1];
    for (let i = 0; i <= LIMIT; i++) {
      const session = await signIn(app, newWallet());
      const res = await call(limited, route).set({ ...bearer(session), Origin: ORIGIN, 'X-Challenge-Response': solved('explore-loan'), 'X-Forwarded-For': from });
      if (i < LIMIT) expect(res.status).toBe(successOf(route));
      else tooMany(res);
    }
  });

  it('per taker key: delegates of one key for two wallets, each request from its own IP', async () => {
    const route = ROUTES[2];
    const ofKey = [fresh.keyedDelegate, fresh.keyedDelegate2];
    for (let i = 0; i < LIMIT; i++) expect((await call(limited, route).set(bearer(ofKey[i % 2])).set('X-Forwarded-For', nextIp())).status).toBe(successOf(route));
    tooMany(await call(limited, route).set(bearer(ofKey[LIMIT % 2])).set('X-Forwarded-For', nextIp()));
  });
});
