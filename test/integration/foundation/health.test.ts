import { Writable } from 'node:stream';
import pino from 'pino';
import { createDataSource } from '../../../shared/entities';
import { closeRedis, createRedis } from '../../../shared/platform/redis';
import { buildApp, request } from '../../support/http';
import { createTestEnv, type TestEnv } from '../../support/test-env';

/** A port on loopback with nothing listening (the discard port is closed on these machines). */
const CLOSED = '127.0.0.1:9';

/** A logger whose JSON lines the test can read. */
function capturingLogger(): { logger: pino.Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const l of chunk.toString().split('\n')) if (l.trim()) lines.push(JSON.parse(l) as Record<string, unknown>);
      done();
    },
  });
  return { logger: pino({ level: 'info' }, sink), lines };
}

/** Driver text that must stay in the logs: addresses, errno names, driver wording. */
const RAW = /ECONNREFUSED|127\.0\.0\.1|:9\b|connect|Connection|timeout expired/i;

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

  it('/readyz is 503 naming redis in fixed words when Redis is unreachable; the driver text goes to the log only', async () => {
    const redis = createRedis(`redis://${CLOSED}`, { retryStrategy: () => null, maxRetriesPerRequest: 0 });
    redis.on('error', () => undefined);
    const { logger, lines } = capturingLogger();
    const { app } = buildApp({ ...env, redis, logger });
    const res = await request(app).get('/readyz').expect(503);
    expect(res.body).toEqual({
      error: 'not ready: redis unreachable',
      code: 'not_ready',
      details: [{ path: 'redis', message: 'unreachable' }],
      request_id: expect.any(String),
    });
    expect(JSON.stringify(res.body)).not.toMatch(RAW);
    expect(res.headers['retry-after']).toBe('5');
    const logged = lines.find((l) => l.msg === 'dependency not ready');
    expect(logged).toMatchObject({ dependency: 'redis', request_id: res.body.request_id, error: expect.stringMatching(/\S/) });
    await closeRedis(redis);
  });

  it('/readyz is 503 naming postgres in fixed words when Postgres is unreachable', async () => {
    const db = createDataSource({ url: `postgres://postgres@${CLOSED}/none`, connectTimeoutMs: 1000 });
    const { logger, lines } = capturingLogger();
    const { app } = buildApp({ ...env, db, logger });
    const res = await request(app).get('/readyz').expect(503);
    expect(res.body.error).toBe('not ready: postgres unreachable');
    expect(res.body.details).toEqual([{ path: 'postgres', message: 'unreachable' }]);
    expect(JSON.stringify(res.body)).not.toMatch(RAW);
    expect(lines.find((l) => l.msg === 'dependency not ready')).toMatchObject({ dependency: 'postgres', error: expect.stringMatching(/ECONNREFUSED|connect/) });
  });

  it('/readyz says a dependency that answers too slowly timed out, in fixed words', async () => {
    // The blocked Redis never answers, whatever the timeout; a timeout this long leaves Postgres
    // time to answer its probe on a busy machine, so only Redis is reported.
    const slow = await createTestEnv({ PROBE_TIMEOUT_MS: '3000' });
    // A Redis client held by a blocking command answers nothing else until it returns.
    const blocked = slow.redis.duplicate();
    const pending = blocked.blpop(`${slow.config.REDIS_PREFIX}never`, 0).catch(() => null);
    try {
      const { app } = buildApp({ ...slow, redis: blocked });
      const res = await request(app).get('/readyz').expect(503);
      expect(res.body.details).toEqual([{ path: 'redis', message: 'no answer within 3000 ms' }]);
    } finally {
      blocked.disconnect();
      await pending;
      await slow.close();
    }
  });
});
