import { Client } from 'pg';
import { openInfra } from '../../../bin/boot';
import { loadConfig } from '../../../shared/platform/config';
import { runMigrationsLocked, type DataSource } from '../../../shared/platform/db';
import { createDataSource } from '../../../shared/entities';
import { createTestEnv, testConfig, type TestEnv } from '../../support/test-env';

describe('Postgres statement_timeout', () => {
  let env: TestEnv;

  beforeAll(async () => {
    env = await createTestEnv();
  });
  afterAll(() => env.close());

  it('has a sane default and refuses nonsense, naming the key', () => {
    expect(loadConfig({}).DATABASE_STATEMENT_TIMEOUT_MS).toBe(10_000);
    expect(loadConfig({ DATABASE_STATEMENT_TIMEOUT_MS: '0' }).DATABASE_STATEMENT_TIMEOUT_MS).toBe(0);
    expect(() => loadConfig({ DATABASE_STATEMENT_TIMEOUT_MS: '-1' })).toThrow(/DATABASE_STATEMENT_TIMEOUT_MS:/);
    expect(() => loadConfig({ DATABASE_STATEMENT_TIMEOUT_MS: 'soon' })).toThrow(/DATABASE_STATEMENT_TIMEOUT_MS:/);
  });

  it('boot applies the configured timeout to every pooled session', async () => {
    const config = testConfig({ DATABASE_URL: env.config.DATABASE_URL, REDIS_PREFIX: env.config.REDIS_PREFIX, DATABASE_STATEMENT_TIMEOUT_MS: '250' });
    const infra = await openInfra(config, { migrate: false, name: 'timeout-test' });
    try {
      const shown = await Promise.all([1, 2, 3].map(() => infra.db.query('SHOW statement_timeout')));
      for (const [row] of shown) expect(row.statement_timeout).toBe('250ms');
    } finally {
      await infra.lifecycle.shutdown('test done');
    }
  });

  it('cancels a statement that runs past it (SQLSTATE 57014) and the pool keeps working', async () => {
    const ds: DataSource = createDataSource({ url: env.config.DATABASE_URL, poolSize: 1, statementTimeoutMs: 200 });
    await ds.initialize();
    // A statement stuck behind a lock someone else holds: it would wait forever without the timeout.
    const holder = new Client({ connectionString: env.config.DATABASE_URL });
    await holder.connect();
    await holder.query('SELECT pg_advisory_lock(42)');
    try {
      const err = await ds.query('SELECT pg_advisory_lock(42)').catch((e: unknown) => e);
      expect((err as { driverError?: { code?: string } }).driverError?.code).toBe('57014');
      expect(await ds.query('SELECT 1 AS ok')).toEqual([{ ok: 1 }]);
    } finally {
      await holder.end();
    }
    // Migrations lift the timeout on their own session and hand the connection back with it restored.
    await runMigrationsLocked(ds);
    expect(await ds.query('SHOW statement_timeout')).toEqual([{ statement_timeout: '200ms' }]);
    await ds.destroy();
  });
});
