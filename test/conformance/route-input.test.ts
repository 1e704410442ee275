import type { Express } from 'express';
import { z } from 'zod';
import type { ApiContext } from '../../api/context';
import { buildOpenApiDocument } from '../../api/http/openapi-document';
import { defineRoute, type NamedRouteSpec } from '../../api/http/route-spec';
import { API_ROUTES } from '../../api/routes/route-table';
import { API_VERSION, ROUTE_TAGS } from '../../api/routes/route-tags';
import { bearer, newWallet, signIn } from '../support/wallets';
import { buildApp, request } from '../support/http';
import { createTestEnv, type TestEnv } from '../support/test-env';

/** Counts the rows a refused request must not have written. */
async function apiKeyRows(env: TestEnv): Promise<number> {
  const [{ n }] = await env.db.query('SELECT count(*)::int AS n FROM api_keys');
  return n;
}

/** How the specs parse a request before the handler runs, and what the document refuses to describe. */
describe('route input parsed by the spec', () => {
  let env: TestEnv;
  let app: Express;
  let ctx: ApiContext;
  let adminToken: string;

  beforeAll(async () => {
    env = await createTestEnv();
    ({ app, ctx } = buildApp(env));
    const admin = newWallet();
    await ctx.services.identity.orgs.create({ kind: 'maker', name: 'Parse Checks', owner: admin.address });
    adminToken = await signIn(app, admin);
  });
  afterAll(() => env.close());

  it('answers 400 naming the field of a bad path parameter and of a bad query', async () => {
    const badAddress = await request(app).get('/api/portfolio/0x1234').expect(400);
    expect(badAddress.body).toEqual({
      error: 'invalid request: address: must be a 0x-prefixed 20-byte hex address',
      code: 'validation_failed',
      details: [{ path: 'address', message: 'must be a 0x-prefixed 20-byte hex address' }],
      request_id: expect.any(String),
    });
    const badChain = await request(app).get('/api/indexer/status?chain_id=031337').expect(400);
    expect(badChain.body).toMatchObject({
      code: 'validation_failed',
      details: [{ path: 'chain_id', message: 'must be a chain id: an integer from 1 to 2147483647' }],
    });
  });

  it('answers a key id that cannot exist with 404 before looking at the body, and writes nothing', async () => {
    const before = await apiKeyRows(env);
    const res = await request(app).delete('/api/maker/keys/not-a-key').set(bearer(adminToken)).send({ message: 42 }).expect(404);
    expect(res.body).toEqual({ error: 'no maker key not-a-key in this organization', code: 'key_not_found', request_id: expect.any(String) });
    expect(await apiKeyRows(env)).toBe(before);
  });

  it('answers a bad body of a spec-parsed route with 400 naming each field, and writes nothing', async () => {
    const before = await apiKeyRows(env);
    const res = await request(app).post('/api/maker/keys').set(bearer(adminToken)).send({ address: 'nope', name: '' }).expect(400);
    expect(res.body.code).toBe('validation_failed');
    expect(res.body.details.map((d: { path: string }) => d.path).sort()).toEqual(['address', 'message', 'name', 'signature']);
    expect(await apiKeyRows(env)).toBe(before);
  });

  it('refuses to describe a route with an undescribed tag or a path parameter without a schema', () => {
    const base = API_ROUTES.find((r) => r.id === 'liveness') as NamedRouteSpec;
    const tagged: NamedRouteSpec = { ...base, id: 'tagged', tags: ['nowhere'] };
    expect(() => buildOpenApiDocument([tagged], ROUTE_TAGS, API_VERSION)).toThrow('tags without a description: nowhere');
    const unparsed: NamedRouteSpec = {
      ...defineRoute({ ...base, path: '/things/:id', request: { query: z.object({}) } }),
      id: 'unparsed',
    };
    expect(() => buildOpenApiDocument([unparsed], ROUTE_TAGS, API_VERSION)).toThrow('route unparsed (/things/:id) declares no schema for path parameter(s) id');
  });
});
