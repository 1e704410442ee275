import { Client } from 'pg';
import { createApp } from '../../api/app';
import { createDataSource } from '../../shared/entities';
import { NetworksService } from '../../shared/networks';
import { networkFile, randomAddress } from '../support/fixtures';
import { buildApp, request } from '../support/http';
import { quoteBody, STRATEGY_ROWS } from '../support/quotes';
import { createTestEnv, type TestEnv } from '../support/test-env';
import { startTestRedis, type TestRedis } from './redis-server';

/**
 * What a client sees while a dependency is down: 503 with Retry-After and the error body,
 * never a 500, and nothing half-written. Real outages: a private redis-server stopped mid-test,
 * and the API's Postgres sessions terminated while a request is using one.
 */
describe('dependency outages answer 503', () => {
  let redis: TestRedis;
  let env: TestEnv;
  let app: ReturnType<typeof buildApp>['app'];
  const create = () => request(app).post('/api/quote').send(quoteBody(randomAddress(), STRATEGY_ROWS[0].legs));
  /** Counted on a connection of its own: the API's pool is what the Postgres test breaks. */
  const quoteCount = async () => {
    const c = new Client({ connectionString: env.config.DATABASE_URL });
    await c.connect();
    try {
      return Number((await c.query('SELECT count(*)::int AS n FROM quotes')).rows[0].n);
    } finally {
      await c.end();
    }
  };

  beforeAll(async () => {
    redis = await startTestRedis();
    env = await createTestEnv({ REDIS_URL: redis.url });
    app = buildApp(env).app;
    await new NetworksService(env.db).upsertNetwork(networkFile(31337));
  });
  afterAll(async () => {
    await redis.start().catch(() => undefined);
    await env?.close();
    await redis?.close();
  });

  function expectUnavailable(res: request.Response, code: string) {
    expect({ status: res.status, body: res.body }).toEqual({
      status: 503,
      body: { error: expect.stringMatching(/temporarily unavailable/), code, request_id: expect.any(String) },
    });
    expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  }

  it('every create during a Redis outage is a 503 with Retry-After that stores nothing; creates succeed once Redis is back', async () => {
    await create().expect(201);
    const before = await quoteCount();
    await redis.stop('SIGKILL');
    // As a new user would: a burst of creates at once, then a few one after another.
    const burst = await Promise.all(Array.from({ length: 8 }, create));
    for (const res of burst) expectUnavailable(res, 'redis_unavailable');
    for (let i = 0; i < 4; i++) expectUnavailable(await create(), 'redis_unavailable');
    expect(await quoteCount()).toBe(before);

    await redis.start();
    let res = await create();
    for (let i = 0; res.status !== 201 && i < 100; i++) {
      expectUnavailable(res, 'redis_unavailable');
      await new Promise((r) => setTimeout(r, 50));
      res = await create();
    }
    expect(res.status).toBe(201);
    expect(await quoteCount()).toBe(before + 1);
  });

  it('a Redis that stops answering without closing its connections gives 503s, not requests that hang', async () => {
    await create().expect(201);
    const before = await quoteCount();
    redis.pause();
    try {
      const answers = await Promise.all(Array.from({ length: 3 }, create));
      for (const res of answers) expectUnavailable(res, 'redis_unavailable');
    } finally {
      redis.resume();
    }
    expect(await quoteCount()).toBe(before);
    await create().expect(201);
  });

  it('a create whose Postgres session is terminated under it is a 503 and stores nothing; the pool recovers', async () => {
    await create().expect(201);
    const before = await quoteCount();
    const locker = new Client({ connectionString: env.config.DATABASE_URL, application_name: 'faults-locker' });
    await locker.connect();
    try {
      // Hold the create at its INSERT, so the termination lands on a session in use.
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE quotes IN ACCESS EXCLUSIVE MODE');
      const pending = create().then((r) => r);
      await waitUntil(async () => {
        const rows = await locker.query(
          `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND wait_event_type = 'Lock'`,
        );
        return rows.rowCount! > 0;
      });
      const killed = await locker.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'`,
      );
      expect(killed.rowCount).toBeGreaterThan(0);
      await locker.query('ROLLBACK');
      expectUnavailable(await pending, 'database_unavailable');
      expect(await quoteCount()).toBe(before);
    } finally {
      await locker.end();
    }
    // Every idle session of the pool was terminated too: the next requests must not see them.
    for (let i = 0; i < 3; i++) {
      const res = await create();
      if (res.status !== 201) expectUnavailable(res, 'database_unavailable');
    }
    await create().expect(201);
  });

  it('a create cancelled by the statement timeout (a database too busy to answer) is a 503, not a 500', async () => {
    const db = createDataSource({ url: env.config.DATABASE_URL, poolSize: 2, statementTimeoutMs: 200 });
    await db.initialize();
    const slowApp = createApp({ config: env.config, logger: env.logger, db, redis: env.redis, metrics: env.metrics, queue: env.queue }).app;
    const locker = new Client({ connectionString: env.config.DATABASE_URL, application_name: 'faults-locker' });
    await locker.connect();
    try {
      await request(slowApp).post('/api/quote').send(quoteBody(randomAddress(), STRATEGY_ROWS[0].legs)).expect(201);
      const before = await quoteCount();
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE quotes IN ACCESS EXCLUSIVE MODE');
      const res = await request(slowApp).post('/api/quote').send(quoteBody(randomAddress(), STRATEGY_ROWS[0].legs));
      await locker.query('ROLLBACK');
      expectUnavailable(res, 'database_unavailable');
      expect(res.body.error).toMatch(/did not answer in time/);
      expect(await quoteCount()).toBe(before);
    } finally {
      await locker.end();
      await db.destroy();
    }
  });
});

async function waitUntil(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('timed out waiting for the condition');
    await new Promise((r) => setTimeout(r, 20));
  }
}
