import { Client } from 'pg';
import { createDataSource } from '../../shared/entities';
import { maintenanceUrl } from '../../shared/platform/db/ensure-database';
import { onBenchExit } from './bench-cleanup';

const BASE = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** A throwaway, migrated database for one benchmark run, dropped when the bench ends (bench-cleanup.ts); `drop()` drops it now. */
export async function benchDatabase(tag: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `rfq_bench_${tag}_${Date.now().toString(36)}`;
  const admin = async (sql: string) => {
    const c = new Client({ connectionString: maintenanceUrl(BASE) });
    await c.connect();
    try {
      await c.query(sql);
    } finally {
      await c.end();
    }
  };
  await admin(`CREATE DATABASE "${name}"`);
  const drop = onBenchExit(`database ${name}`, () => admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
  const u = new URL(BASE);
  u.pathname = `/${name}`;
  const url = u.toString();
  const ds = createDataSource({ url, poolSize: 1 });
  await ds.initialize();
  await ds.runMigrations({ transaction: 'each' });
  await ds.destroy();
  return { url, drop };
}

/** p-th percentile of a sorted-or-not list of numbers. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
}
