import { Client } from 'pg';
import { openInfra, type Infra } from '../../../bin/boot';
import { loadMigrations, MIGRATION_LOCK_NAME } from '../../../shared/platform/db';
import { dropDatabase, runId, urlFor, withAdmin } from '../../support/test-db';
import { testConfig } from '../../support/test-env';

/** Polls `check` until it holds; no fixed sleeps. */
async function until(what: string, check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('MIGRATE_ON_START under several replicas', () => {
  let seq = 0;
  const fresh = async () => {
    const name = `rfq_t_${runId()}_miglock_${process.pid}_${++seq}`;
    await withAdmin((c) => c.query(`CREATE DATABASE "${name}"`));
    return name;
  };
  const replica = (db: string, n: number) =>
    openInfra(testConfig({ DATABASE_URL: urlFor(db), REDIS_PREFIX: `t:${runId()}:miglock:${process.pid}:${n}:`, MIGRATE_ON_START: 'true' }), {
      migrate: true,
      name: `replica-${n}`,
    });
  const opened: Infra[] = [];
  const dbs: string[] = [];

  afterAll(async () => {
    await Promise.all(opened.map((i) => i.lifecycle.shutdown('test done')));
    await withAdmin(async (c) => {
      for (const d of dbs) await dropDatabase(c, d);
    });
  });

  async function applied(db: string): Promise<string[]> {
    const c = new Client({ connectionString: urlFor(db) });
    await c.connect();
    try {
      return (await c.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY id')).rows.map((r) => r.name);
    } finally {
      await c.end();
    }
  }

  it('two replicas starting at once both succeed and each migration is applied once', async () => {
    const db = await fresh();
    dbs.push(db);
    const both = await Promise.all([replica(db, 1), replica(db, 2)]);
    opened.push(...both);
    const names = loadMigrations().map((m) => m.name);
    expect(await applied(db)).toEqual(expect.arrayContaining(names));
    expect((await applied(db)).length).toBe(names.length);
  });

  it('a replica waits while another holds the migration lock, then finds nothing left to do', async () => {
    const db = await fresh();
    dbs.push(db);
    // Stand in for a replica that is migrating: hold the lock on a session of our own.
    const holder = new Client({ connectionString: urlFor(db), application_name: 'lock-holder' });
    await holder.connect();
    await holder.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', [MIGRATION_LOCK_NAME]);
    let done = false;
    const starting = replica(db, 3).then((infra) => {
      done = true;
      opened.push(infra);
      return infra;
    });
    try {
      await until('the replica queues behind the lock', async () => {
        const r = await holder.query(`SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`);
        return r.rows[0].n === 1;
      });
      expect(done).toBe(false);
      const table = await holder.query(`SELECT to_regclass('public.schema_migrations') AS t`);
      expect(table.rows[0].t).toBeNull();
    } finally {
      await holder.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [MIGRATION_LOCK_NAME]);
      await holder.end();
    }
    await starting;
    expect((await applied(db)).length).toBe(loadMigrations().length);
    // A replica started later sees the schema up to date and applies nothing.
    opened.push(await replica(db, 4));
    expect((await applied(db)).length).toBe(loadMigrations().length);
  });
});
