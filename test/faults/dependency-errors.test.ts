import { Client } from 'pg';
import { QueryFailedError } from 'typeorm';
import { dependencyOutage } from '../../shared/platform/errors';
import { closeRedis, createRedis } from '../../shared/platform/redis';
import { freePort } from '../support/chain';
import { createTestEnv, type TestEnv } from '../support/test-env';

/** Errors produced by the real drivers against real (absent or failing) servers, sorted by the one mapper. */
describe('dependencyOutage', () => {
  let env: TestEnv;
  beforeAll(async () => {
    env = await createTestEnv();
  });
  afterAll(() => env.close());

  const classify = (err: unknown) => {
    const out = dependencyOutage(err);
    return out && { status: out.status, code: out.code, retryAfter: out.headers?.['Retry-After'] };
  };

  it('a refused Postgres connection is the database being unavailable', async () => {
    const client = new Client({ connectionString: `postgres://postgres@127.0.0.1:${await freePort()}/x` });
    const err = await client.connect().then(
      () => null,
      (e: unknown) => e,
    );
    expect((err as { code?: string }).code).toBe('ECONNREFUSED');
    expect(classify(err)).toEqual({ status: 503, code: 'database_unavailable', retryAfter: '2' });
  });

  it('a refused Redis connection is Redis being unavailable', async () => {
    const redis = createRedis(`redis://127.0.0.1:${await freePort()}`);
    redis.on('error', () => undefined);
    try {
      const err = await redis.get('k').then(
        () => null,
        (e: unknown) => e,
      );
      expect(classify(err)).toEqual({ status: 503, code: 'redis_unavailable', retryAfter: '2' });
    } finally {
      await closeRedis(redis);
    }
  });

  it('leaves real bugs and bad data alone: a failing statement or an unrelated cause stays a 500', async () => {
    const bad = await env.db.query('SELECT 1/0').then(
      () => null,
      (e: unknown) => e,
    );
    expect(bad).toBeInstanceOf(QueryFailedError);
    expect(classify(bad)).toBeNull();
    // An RPC client's wrapper around a refused socket is not a database outage.
    const rpc = Object.assign(new Error('HTTP request failed'), { cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }) });
    expect(classify(rpc)).toBeNull();
    expect(classify(new Error('boom'))).toBeNull();
    expect(classify('a string')).toBeNull();
  });

  it('a TypeORM QueryFailedError over a terminated session is the database being unavailable', async () => {
    const runner = env.db.createQueryRunner();
    try {
      const [{ pid }] = await runner.query('SELECT pg_backend_pid() AS pid');
      const err = await runner.query('SELECT pg_terminate_backend($1), pg_sleep(1)', [pid]).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(QueryFailedError);
      expect(classify(err)).toEqual({ status: 503, code: 'database_unavailable', retryAfter: '2' });
    } finally {
      await runner.release();
    }
  });
});
