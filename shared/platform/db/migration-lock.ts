import { MigrationExecutor, type DataSource, type Migration } from 'typeorm';

/**
 * Name of the Postgres advisory lock every migrator takes (hashed by Postgres to the lock key).
 * Advisory locks are per database, so deployments sharing a server do not wait on each other.
 */
export const MIGRATION_LOCK_NAME = 'options-rfq:schema-migrations';

/**
 * Applies pending migrations while holding the migration lock, so replicas starting together
 * migrate one at a time: the first applies, the others wait, then find nothing pending. The lock
 * and the migrations share one session, so the lock goes with the connection if the process dies.
 * `onWait` is called when another migrator holds the lock.
 */
export async function runMigrationsLocked(ds: DataSource, opts: { onWait?: () => void } = {}): Promise<Migration[]> {
  const runner = ds.createQueryRunner();
  await runner.connect();
  try {
    // Waiting for another replica, or building an index on a large table, is not a runaway
    // statement: the pool's statement_timeout does not apply to this session.
    await runner.query('SET statement_timeout = 0');
    const [{ locked }] = (await runner.query('SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS locked', [MIGRATION_LOCK_NAME])) as { locked: boolean }[];
    if (!locked) {
      opts.onWait?.();
      await runner.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', [MIGRATION_LOCK_NAME]);
    }
    try {
      const executor = new MigrationExecutor(ds, runner);
      executor.transaction = 'each';
      return await executor.executePendingMigrations();
    } finally {
      await runner.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [MIGRATION_LOCK_NAME]);
    }
  } finally {
    // The connection goes back to the pool: give it the pool's timeout again.
    await runner.query('RESET statement_timeout').catch(() => undefined);
    await runner.release();
  }
}
