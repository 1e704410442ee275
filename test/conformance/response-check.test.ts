import express, { type Express } from 'express';
import type { ApiContext } from '../../api/context';
import { mountRoutes, recordRouteSpecs } from '../../api/http/mount-routes';
import type { NamedRouteSpec, RouteBinding, RouteSpec } from '../../api/http/route-spec';
import { API_ROUTES } from '../../api/routes/route-table';
import { ConflictError, ServiceUnavailableError } from '../../shared/platform/errors';
import { errorHandler, notFound } from '../../shared/platform/http/error-handler';
import { requestContext } from '../../shared/platform/http/request-context';
import { specViolation } from '../support/conformance-check';
import { buildApp, request } from '../support/http';
import { createTestEnv, type TestEnv } from '../support/test-env';

/**
 * The response check every API test goes through (test/support/http.ts): an answer that drifts
 * from its route's spec fails the request, even when the test itself asserts nothing about it.
 */
describe('response checks against the route specs', () => {
  let env: TestEnv;
  let ctx: ApiContext;
  let app: Express;

  const route = (id: string): NamedRouteSpec => {
    const found = API_ROUTES.find((r) => r.id === id);
    if (!found) throw new Error(`no route ${id}`);
    return found;
  };

  /** An app serving one real spec with a handler that drifts from it. */
  function drifted(id: string, binding: RouteBinding<RouteSpec>): Express {
    const spec = route(id);
    const out = express();
    out.use(requestContext(env.logger));
    const router = express.Router();
    mountRoutes(router, '', [{ spec, binding }], ctx);
    out.use(router);
    out.use(notFound);
    out.use(errorHandler);
    recordRouteSpecs(out, [spec]);
    return out;
  }

  beforeAll(async () => {
    env = await createTestEnv();
    ({ app, ctx } = buildApp(env));
  });
  afterAll(() => env.close());

  it('passes answers that keep the spec: a success body, a declared error, the fallback 404', async () => {
    expect((await request(app).get('/healthz').expect(200)).body.status).toBe('ok');
    expect((await request(app).get('/api/me').expect(401)).body.code).toBe('wallet_required');
    expect((await request(app).get('/api/nope').expect(404)).body.code).toBe('route_not_found');
  });

  it('fails a success body that drifted from its schema, naming the field', async () => {
    const app = drifted('liveness', async () => ({ status: 'ok' }) as never);
    await expect(request(app).get('/healthz')).rejects.toThrow(/spec: GET \/healthz answered 200 with a body off route liveness's schema[\s\S]*uptime_s/);
  });

  it('fails a field the spec does not know, so a new field cannot ship undocumented', async () => {
    const app = drifted('liveness', async () => ({ status: 'ok', uptime_s: 1, pid: 42 }) as never);
    await expect(request(app).get('/healthz')).rejects.toThrow(/body off route liveness's schema[\s\S]*pid/);
  });

  it('fails a status the route does not declare', async () => {
    const app = drifted('liveness', async () => {
      throw new ConflictError('already alive', 'already_alive');
    });
    await expect(request(app).get('/healthz')).rejects.toThrow(/GET \/healthz answered 409, which route liveness does not declare/);
  });

  it('fails an error code the route does not declare for a status it does declare', async () => {
    const app = drifted('readiness', async () => {
      throw new ServiceUnavailableError('maintenance', 'maintenance');
    });
    await expect(request(app).get('/readyz')).rejects.toThrow(
      /answered 503 with code maintenance, which route readiness does not declare for 503 \(declared: not_ready/,
    );
  });

  it('fails an error body off the error schema and a path that matches no route but answers other than 404', () => {
    const specs = API_ROUTES;
    const headers = { 'content-type': 'application/json; charset=utf-8', 'x-request-id': 'req-12345678' };
    const noRequestId = { status: 401, headers, body: { error: 'x', code: 'wallet_required' }, text: '' };
    expect(specViolation(specs, 'GET', '/api/me', noRequestId)).toMatch(/error body off ErrorBody[\s\S]*request_id/);
    const wrongId = { ...noRequestId, body: { ...noRequestId.body, request_id: 'other-1234' } };
    expect(specViolation(specs, 'GET', '/api/me', wrongId)).toMatch(/not its X-Request-Id header/);
    const unmatched = { status: 200, headers, body: {}, text: '{}' };
    expect(specViolation(specs, 'GET', '/api/nope', unmatched)).toMatch(/GET \/api\/nope answered 200, which the answer to unmatched paths does not declare/);
  });

  it('leaves apps that were not built from specs unchecked (probe apps of the auth tests)', async () => {
    const probe = express();
    probe.get('/anything', (_req, res) => {
      res.status(418).json({ teapot: true });
    });
    expect((await request(probe).get('/anything').expect(418)).body).toEqual({ teapot: true });
  });
});
