import express, { type Express } from 'express';
import { createApp } from '../../../api/app';
import { exploreGate } from '../../../api/auth';
import type { Config } from '../../../shared/platform/config';
import { errorHandler } from '../../../shared/platform/http/error-handler';
import { requestContext } from '../../../shared/platform/http/request-context';
import { buildApp, request } from '../../support/http';
import { createTestEnv, type TestEnv } from '../../support/test-env';
import { bearer, newWallet, signIn } from '../../support/wallets';

const ORIGIN = 'https://app.example';

/**
 * The caps on live explore stream tokens, one per config key: per client IP, per wallet, per
 * taker API key, per subject. The gate is mounted as the real stream mint mounts it (its route
 * id), in front of a handler that answers 201 as a mint does; each case uses its own client IP
 * and CLOB addresses so the caps of other cases do not interfere.
 */
describe('explore stream caps', () => {
  let env: TestEnv;
  let app: Express;
  let takerSecret: string;

  /** The CLOB stream mint's gate under `overrides`, before a handler answering 201; `failWith` answers that instead. */
  function mintApp(overrides: Partial<Config>, failWith?: number): Express {
    const ctx = createApp({ ...env, config: Object.freeze({ ...env.config, ...overrides }) }).ctx;
    const a = express();
    a.set('trust proxy', 1);
    a.use(requestContext(ctx.logger));
    a.use(express.json());
    a.post('/api/explore/clobs/:address/stream', exploreGate(ctx, 'explore-clob', 'postExploreClobStream'), (_req, res) => {
      res.status(failWith ?? 201).json({});
    });
    a.use(errorHandler);
    return a;
  }
  const clob = () => newWallet().address.toLowerCase();
  const session = async () => bearer(await signIn(app, newWallet()));
  const delegate = async () =>
    bearer(
      (await request(app).post('/api/taker/delegate').set(bearer(takerSecret)).send({ address: newWallet().address, expires_in: 600 }).expect(200)).body.token,
    );
  const mint = (a: Express, ip: string, auth: Record<string, string>, address: string) =>
    request(a).post(`/api/explore/clobs/${address}/stream`).set('X-Forwarded-For', ip).set('Origin', ORIGIN).set(auth);
  const refusedBy = (res: request.Response, key: string) => {
    expect(res.status).toBe(429);
    expect(res.body).toMatchObject({ code: 'rate_limited', limit: key, error: expect.stringContaining(key) });
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
  };

  beforeAll(async () => {
    env = await createTestEnv({ CORS_ORIGINS: ORIGIN });
    app = buildApp(env).app;
    const { orgs } = buildApp(env).ctx.services.identity;
    const takerAdmin = newWallet();
    const adminToken = await signIn(app, takerAdmin);
    await orgs.create({ kind: 'taker', name: 'Integrator', owner: takerAdmin.address });
    takerSecret = (await request(app).post('/api/taker/keys').set(bearer(adminToken)).send({ name: 'backend' }).expect(201)).body.secret;
  });
  afterAll(async () => {
    await env?.close();
  });

  it('EXPLORE_STREAMS_PER_IP: a client IP holds at most that many live tokens, whoever mints them', async () => {
    const a = mintApp({ EXPLORE_STREAMS_PER_IP: 2 });
    await mint(a, '10.1.0.1', await session(), clob()).expect(201);
    await mint(a, '10.1.0.1', await session(), clob()).expect(201);
    refusedBy(await mint(a, '10.1.0.1', await session(), clob()), 'EXPLORE_STREAMS_PER_IP');
    await mint(a, '10.1.0.2', await session(), clob()).expect(201);
  });

  it('EXPLORE_STREAMS_PER_WALLET: a wallet session holds at most that many; another wallet is not affected', async () => {
    const a = mintApp({ EXPLORE_STREAMS_PER_WALLET: 1 });
    const me = await session();
    await mint(a, '10.2.0.1', me, clob()).expect(201);
    refusedBy(await mint(a, '10.2.0.1', me, clob()), 'EXPLORE_STREAMS_PER_WALLET');
    await mint(a, '10.2.0.1', await session(), clob()).expect(201);
  });

  it('EXPLORE_STREAMS_PER_TAKER_KEY: the delegates of one taker key hold at most that many together', async () => {
    const a = mintApp({ EXPLORE_STREAMS_PER_TAKER_KEY: 2 });
    await mint(a, '10.3.0.1', await delegate(), clob()).expect(201);
    await mint(a, '10.3.0.1', await delegate(), clob()).expect(201);
    refusedBy(await mint(a, '10.3.0.1', await delegate(), clob()), 'EXPLORE_STREAMS_PER_TAKER_KEY');
    // A SIWE session spends no taker key.
    await mint(a, '10.3.0.1', await session(), clob()).expect(201);
  });

  it('EXPLORE_STREAMS_PER_SUBJECT: one CLOB has at most that many live tokens; another CLOB is not affected', async () => {
    const a = mintApp({ EXPLORE_STREAMS_PER_SUBJECT: 2 });
    const busy = clob();
    await mint(a, '10.4.0.1', await session(), busy).expect(201);
    await mint(a, '10.4.0.2', await session(), busy).expect(201);
    refusedBy(await mint(a, '10.4.0.3', await session(), busy), 'EXPLORE_STREAMS_PER_SUBJECT');
    await mint(a, '10.4.0.3', await session(), clob()).expect(201);
  });

  it('a mint that does not answer 201 gives its slots back', async () => {
    const failing = mintApp({ EXPLORE_STREAMS_PER_WALLET: 1 }, 503);
    const me = await session();
    await mint(failing, '10.5.0.1', me, clob()).expect(503);
    await mint(failing, '10.5.0.1', me, clob()).expect(503);
    await mint(mintApp({ EXPLORE_STREAMS_PER_WALLET: 1 }), '10.5.0.1', me, clob()).expect(201);
  });
});
