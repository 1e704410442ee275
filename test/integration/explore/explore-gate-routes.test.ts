import type { Express } from 'express';
import { createApp } from '../../../api/app';
import type { NamedContract } from '../../../api/contract/route-contract';
import { API_ROUTES } from '../../../api/routes/route-registry';
import type { Config } from '../../../shared/platform/config';
import { RegistryService } from '../../../shared/registry';
import { startChallengeServer, type ChallengeServer } from '../../support/challenge-server';
import { exploreCredentials, type ExploreCredentials } from '../../support/explore';
import { networkFile, randomAddress } from '../../support/fixtures';
import { buildApp, request } from '../../support/http';
import { createTestEnv, type TestEnv } from '../../support/test-env';
import { bearer, newWallet, signIn } from '../../support/wallets';

/**
 * The Explore gate on every `explore-clob` route, row by row of the spec's audience table and
 * Explore error table: the same credential gets the same answer on each of the seven routes,
 * and each route counts its own `:explore` rate limit per IP, wallet and taker key.
 */
const ORIGIN = 'https://app.example';
const PAIR = randomAddress();
const ROUTES = API_ROUTES.filter((c) => 'challenge' in c.auth && c.auth.challenge === 'explore-clob');

const pathOf = (c: NamedContract) => `${c.path.replace(':address', PAIR)}?chain_id=31337`;
const call = (app: Express, c: NamedContract) => (c.method === 'post' ? request(app).post(pathOf(c)) : request(app).get(pathOf(c)));
const successOf = (c: NamedContract) => Number(Object.keys(c.responses)[0]);

let env: TestEnv;
let app: Express;
let challenge: ChallengeServer;
let cred: ExploreCredentials;
let tokens = 0;

/** A challenge token the verifier accepts once, for `action`. */
function solved(action: string): string {
  const token = `token-${++tokens}`;
  challenge.accept(token, action);
  return token;
}

type Headers = Record<string, string>;
interface Row {
  audience: string;
  headers: () => Headers;
  status: number | 'success';
  error?: string;
}

/** Rows of the spec's audience table and Explore error table (geoblock: DESIGN's region rule). */
const ROWS: Row[] = [
  { audience: 'no bearer', headers: () => ({ Origin: ORIGIN }), status: 401, error: 'siwe or taker delegate required' },
  { audience: 'an invalid bearer', headers: () => ({ ...bearer('not.a.jwt'), Origin: ORIGIN }), status: 401, error: 'siwe or taker delegate required' },
  { audience: 'a maker API key', headers: () => ({ ...bearer(cred.makerSecret), Origin: ORIGIN }), status: 401, error: 'siwe or taker delegate required' },
  { audience: 'a raw taker API key', headers: () => bearer(cred.takerSecret), status: 401, error: 'siwe or taker delegate required' },
  { audience: 'a delegate without key_id (taker admin UI)', headers: () => bearer(cred.adminDelegate), status: 401, error: 'taker API key delegate required' },
  { audience: 'a keyed delegate from a geoblocked country', headers: () => ({ ...bearer(cred.keyedDelegate), 'CF-IPCountry': 'kp' }), status: 403, error: 'explore is not available in your region' },
  { audience: 'SIWE without Origin', headers: () => ({ ...bearer(cred.session), 'X-Challenge-Response': solved('explore-clob') }), status: 403, error: 'origin header required' },
  { audience: 'SIWE with an Origin off the allowlist', headers: () => ({ ...bearer(cred.session), Origin: 'https://evil.example' }), status: 403, error: 'origin not allowed' },
  { audience: 'SIWE + Origin without a challenge token', headers: () => ({ ...bearer(cred.session), Origin: ORIGIN }), status: 403, error: 'challenge verification required' },
  { audience: 'SIWE + Origin with a forged token', headers: () => ({ ...bearer(cred.session), Origin: ORIGIN, 'X-Challenge-Response': 'forged' }), status: 403, error: 'challenge verification required' },
  {
    audience: 'SIWE + Origin with a token solved for explore-loan',
    headers: () => ({ ...bearer(cred.session), Origin: ORIGIN, 'X-Challenge-Response': solved('explore-loan') }),
    status: 403,
    error: 'challenge verification required',
  },
  { audience: 'trading app: SIWE + allowed Origin + challenge for explore-clob', headers: () => ({ ...bearer(cred.session), Origin: ORIGIN, 'X-Challenge-Response': solved('explore-clob') }), status: 'success' },
  { audience: 'integrator backend: keyed delegate, no Origin, no challenge', headers: () => bearer(cred.keyedDelegate), status: 'success' },
];

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
  // A pair the indexer would have found: the routes answer it (empty) once the gate lets them through.
  await env.db.query(
    `INSERT INTO indexer_pairs (chain_id, address, factory, token0, token1, premium_token, created_block, created_block_hash, created_log_index, tx_hash)
     VALUES (31337, $1, $2, $3, $4, $4, 1, $5, 0, $5)`,
    [PAIR, randomAddress(), randomAddress(), randomAddress(), `0x${'ab'.repeat(32)}`],
  );
  cred = await exploreCredentials(app, buildApp(env).ctx);
}, 60_000);

afterAll(async () => {
  await env?.close();
  await challenge?.close();
});

it('covers the seven explore-clob routes of the spec', () => {
  expect(ROUTES.map((c) => `${c.method.toUpperCase()} ${c.path}`).sort()).toEqual(
    [
      'GET /api/clob/:address/activity',
      'GET /api/clob/:address/book',
      'GET /api/clob/:address/fills',
      'GET /api/clob/:address/summary',
      'GET /api/clob/book',
      'GET /api/explore/clobs/:address',
      'POST /api/explore/clobs/:address/stream',
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

describe('429 too many requests: each route its own :explore bucket, per IP, per wallet and per taker key', () => {
  const LIMIT = 3;
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

  it('a route spends only its own bucket: one delegate exhausts every route in turn, each after the limit', async () => {
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
    const headers = () => ({ ...bearer(session), Origin: ORIGIN, 'X-Challenge-Response': solved('explore-clob'), 'X-Forwarded-For': nextIp() });
    for (let i = 0; i < LIMIT; i++) expect((await call(limited, route).set(headers())).status).toBe(successOf(route));
    tooMany(await call(limited, route).set(headers()));
  });

  it('per IP: a new wallet each time from one IP', async () => {
    const from = nextIp();
    const route = ROUTES[1];
    for (let i = 0; i <= LIMIT; i++) {
      const session = await signIn(app, newWallet());
      const res = await call(limited, route).set({ ...bearer(session), Origin: ORIGIN, 'X-Challenge-Response': solved('explore-clob'), 'X-Forwarded-For': from });
      if (i < LIMIT) expect(res.status).toBe(successOf(route));
      else tooMany(res);
    }
  });

  it('per taker key: delegates of one key for two wallets, each request from its own IP', async () => {
    const route = ROUTES[2];
    // Neither wallet nor IP reaches the limit; the key they share does.
    const ofKey = [fresh.keyedDelegate, fresh.keyedDelegate2];
    for (let i = 0; i < LIMIT; i++) expect((await call(limited, route).set(bearer(ofKey[i % 2])).set('X-Forwarded-For', nextIp())).status).toBe(successOf(route));
    tooMany(await call(limited, route).set(bearer(ofKey[LIMIT % 2])).set('X-Forwarded-For', nextIp()));
  });
});

