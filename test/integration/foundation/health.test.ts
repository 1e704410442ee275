import request from 'supertest';
import { createDataSource } from '../../../shared/db';
import { closeRedis, createRedis } from '../../../shared/redis';
import { buildApp } from '../../support/http';
import { createTestEnv, type TestEnv } from '../../support/test-env';

/** A port on loopback with nothing listening (the discard port is closed on these machines). */
const CLOSED = '127.0.0.1:9';

describe('health probes', () => {
  let env: TestEnv;

  beforeAll(async () => {
    env = await createTestEnv({ PROBE_TIMEOUT_MS: '1500' });
  });
  afterAll(() => env.close());

  it('/healthz answers while the process is up', async () => {
    const res = await request(buildApp(env).app).get('/healthz').expect(200);
    expect(res.body.status).toBe('ok');
  });

  it('/readyz is 200 when Postgres and Redis answer', async () => {
    const res = await request(buildApp(env).app).get('/readyz').expect(200);
    expect(res.body.status).toBe('ready');
    expect(res.body.checks.postgres.ok).toBe(true);
    expect(res.body.checks.redis.ok).toBe(true);
  });

  it('/readyz is 503 naming redis when Redis is unreachable', async () => {
    const redis = createRedis(`redis://${CLOSED}`, { retryStrategy: () => null, maxRetriesPerRequest: 0 });
    redis.on('error', () => undefined);
    const { app } = buildApp({ ...env, redis });
    const res = await request(app).get('/readyz').expect(503);
    expect(res.body.code).toBe('not_ready');
    expect(res.body.error).toBe('not ready: redis unreachable');
    expect(res.body.details).toEqual([{ path: 'redis', message: expect.any(String) }]);
    await closeRedis(redis);
  });

  it('/readyz is 503 naming postgres when Postgres is unreachable', async () => {
    const db = createDataSource({ url: `postgres://postgres@${CLOSED}/none`, connectTimeoutMs: 1000 });
    const { app } = buildApp({ ...env, db });
    const res = await request(app).get('/readyz').expect(503);
    expect(res.body.error).toBe('not ready: postgres unreachable');
    expect(res.body.details[0].path).toBe('postgres');
  });
});
