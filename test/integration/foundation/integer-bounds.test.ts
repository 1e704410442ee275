import type { Express } from 'express';
import { NetworksService } from '../../../shared/networks';
import { ValidationError } from '../../../shared/platform/errors';
import { networkFile, randomAddress } from '../../support/fixtures';
import { buildApp, request } from '../../support/http';
import { quoteBody, STRATEGY_ROWS } from '../../support/quotes';
import { createTestEnv, type TestEnv } from '../../support/test-env';
import { bearer, newWallet, signIn } from '../../support/wallets';

/** chain_id is a Postgres `integer` column: 2^31 - 1 is the largest value any query can carry. */
const INT4_MAX = 2 ** 31 - 1;
const TOO_BIG = [3_000_000_000, INT4_MAX + 1, 2 ** 53 - 1];

/** Row counts of every table, to prove a 400 wrote nothing. */
async function rowCounts(env: TestEnv): Promise<Record<string, number>> {
  const tables: { table_name: string }[] = await env.db.query(
    `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY 1`,
  );
  const out: Record<string, number> = {};
  for (const { table_name } of tables) out[table_name] = (await env.db.query(`SELECT count(*)::int AS n FROM "${table_name}"`))[0].n;
  return out;
}

function expectChainIdRefused(res: request.Response): void {
  expect(res.status).toBe(400);
  expect(res.body).toEqual({
    error: expect.stringContaining('chain_id'),
    code: 'validation_failed',
    details: [{ path: 'chain_id', message: `must be a chain id: an integer from 1 to ${INT4_MAX}` }],
    request_id: expect.any(String),
  });
}

describe('integer inputs are bounded to their column (finding 7)', () => {
  let env: TestEnv;
  let app: Express;
  let makerToken: string;
  let walletToken: string;

  beforeAll(async () => {
    env = await createTestEnv();
    const built = buildApp(env);
    app = built.app;
    await new NetworksService(env.db).upsertNetwork(networkFile(31337));
    const maker = newWallet();
    await built.ctx.services.identity.orgs.create({ kind: 'maker', name: 'Bounds Desk', owner: maker.address });
    makerToken = await signIn(app, maker);
    walletToken = await signIn(app, newWallet());
  });
  afterAll(() => env.close());

  describe.each(TOO_BIG)('chain_id %d', (chainId) => {
    it('POST /api/quote: 400 naming chain_id, nothing stored', async () => {
      const before = await rowCounts(env);
      const res = await request(app)
        .post('/api/quote')
        .send(quoteBody(randomAddress(), STRATEGY_ROWS[0].legs, { chain_id: chainId }));
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('validation_failed');
      expect(res.body.details).toEqual([{ path: 'chain_id', message: `must be a chain id: an integer from 1 to ${INT4_MAX}` }]);
      expect(await rowCounts(env)).toEqual(before);
    });

    it.each(['premium', 'freemium'])('POST /api/pubsub/%s: 400 naming chain_id', async (tier) => {
      const token = tier === 'premium' ? makerToken : walletToken;
      expectChainIdRefused(await request(app).post(`/api/pubsub/${tier}`).set(bearer(token)).send({ chain_id: chainId }));
    });

    it.each(['status', 'cores'])('GET /api/indexer/%s: 400 naming chain_id', async (what) => {
      expectChainIdRefused(
        await request(app)
          .get(`/api/indexer/${what}`)
          .query({ chain_id: String(chainId) }),
      );
    });

    it('GET /api/portfolio/:address: 400 naming chain_id', async () => {
      expectChainIdRefused(
        await request(app)
          .get(`/api/portfolio/${randomAddress()}`)
          .query({ chain_id: String(chainId) }),
      );
    });

    it('ops network:upsert: a validation error naming chain_id, nothing stored', async () => {
      const before = await rowCounts(env);
      const err = await new NetworksService(env.db).upsertNetwork(networkFile(chainId)).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ValidationError);
      expect((err as ValidationError).details).toEqual([{ path: 'chain_id', message: `must be a chain id: an integer from 1 to ${INT4_MAX}` }]);
      expect(await rowCounts(env)).toEqual(before);
    });
  });

  it('the largest int4 chain id is merely unknown on every route (400, never 500)', async () => {
    const unknown = { path: 'chain_id', message: `unknown chain ${INT4_MAX}: see GET /api/networks` };
    const quote = await request(app)
      .post('/api/quote')
      .send(quoteBody(randomAddress(), STRATEGY_ROWS[0].legs, { chain_id: INT4_MAX }));
    expect([quote.status, quote.body.details]).toEqual([400, [unknown]]);
    const pubsub = await request(app).post('/api/pubsub/freemium').set(bearer(walletToken)).send({ chain_id: INT4_MAX });
    expect([pubsub.status, pubsub.body.details]).toEqual([400, [unknown]]);
    for (const path of ['/api/indexer/status', '/api/indexer/cores', `/api/portfolio/${randomAddress()}`]) {
      const res = await request(app)
        .get(path)
        .query({ chain_id: String(INT4_MAX) });
      expect([path, res.status, res.body.details]).toEqual([path, 400, [unknown]]);
    }
  });

  it('query chain ids with leading zeros, signs or many digits are refused, not truncated', async () => {
    for (const raw of ['0', '-1', '+5', '031337', '1e3', '99999999999999999999', ' 31337']) {
      const res = await request(app).get('/api/indexer/status').query({ chain_id: raw });
      expect([raw, res.status, res.body.details?.[0]?.path]).toEqual([raw, 400, 'chain_id']);
    }
  });

  it('a repeated query chain_id is one bad field, not a 500', async () => {
    const res = await request(app).get(`/api/portfolio/${randomAddress()}?chain_id=31337&chain_id=1`);
    expect(res.status).toBe(400);
    expect(res.body.details).toEqual([{ path: 'chain_id', message: expect.any(String) }]);
  });
});
