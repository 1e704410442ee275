import express from 'express';
import { errorHandler } from '../../../shared/platform/http/error-handler';
import { requestContext } from '../../../shared/platform/http/request-context';
import { createLogger } from '../../../shared/platform/logging';
import { buildApp, request } from '../../support/http';
import { createTestEnv, type TestEnv } from '../../support/test-env';

describe('HTTP error handling', () => {
  let env: TestEnv;
  let app: ReturnType<typeof buildApp>['app'];

  beforeAll(async () => {
    env = await createTestEnv({ BODY_LIMIT_BYTES: '2048' });
    app = buildApp(env).app;
  });
  afterAll(() => env.close());

  it('unknown /api route: 404 with the error body and a request id', async () => {
    const res = await request(app).get('/api/nope').expect(404);
    expect(res.body).toEqual({ error: 'no route GET /api/nope', code: 'route_not_found', request_id: expect.any(String) });
    expect(res.headers['x-request-id']).toBe(res.body.request_id);
  });

  it('keeps a sane caller request id and replaces an unsafe one', async () => {
    const kept = await request(app).get('/api/nope').set('X-Request-Id', 'trace-abc-12345').expect(404);
    expect(kept.body.request_id).toBe('trace-abc-12345');
    const replaced = await request(app).get('/api/nope').set('X-Request-Id', 'bad id; drop table').expect(404);
    expect(replaced.body.request_id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('malformed JSON: 400 invalid json', async () => {
    const res = await request(app).post('/api/premium/activate').set('Content-Type', 'application/json').send('{"a":').expect(400);
    expect(res.body).toEqual({ error: 'invalid json', code: 'invalid_json', request_id: expect.any(String) });
  });

  it('oversized body: 413', async () => {
    const res = await request(app)
      .post('/api/premium/activate')
      .set('Content-Type', 'application/json')
      .send(JSON.stringify({ pad: 'x'.repeat(4096) }))
      .expect(413);
    expect(res.body.code).toBe('payload_too_large');
    expect(res.body.error).toBe('request body larger than 2048 bytes');
  });

  it('a path parameter whose percent-encoding does not decode: 400 invalid_path, not a 500', async () => {
    for (const path of ['/api/quote/%', '/api/quote/%E0%A4%A', '/api/portfolio/%u0041', '/api/taker/keys/%ZZ']) {
      const res = await request(app).get(path);
      expect([path, res.status, res.body]).toEqual([
        path,
        400,
        { error: 'the path has malformed percent-encoding', code: 'invalid_path', request_id: expect.any(String) },
      ]);
    }
  });

  it.each(['gzip', 'deflate', 'br'])('a body that is not %s-encoded as Content-Encoding says: 400 invalid_body_encoding, not a 500', async (encoding) => {
    const res = await request(app).post('/api/premium/activate').set('Content-Type', 'application/json').set('Content-Encoding', encoding).send('{"a":1}');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: 'request body does not decode with its Content-Encoding',
      code: 'invalid_body_encoding',
      request_id: expect.any(String),
    });
  });

  it('an unexpected error is a bare 500 carrying the request id, never the stack', async () => {
    const bare = express();
    bare.use(requestContext(createLogger({ level: 'silent' })));
    bare.get('/boom', () => {
      throw new Error('secret internals at /srv/db.ts:12');
    });
    bare.use(errorHandler);
    const res = await request(bare).get('/boom').expect(500);
    expect(res.body).toEqual({ error: 'internal error', code: 'internal_error', request_id: expect.any(String) });
    expect(JSON.stringify(res.body)).not.toContain('secret');
  });
});
