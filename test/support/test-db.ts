import { Client } from 'pg';
import { maintenanceUrl } from '../../shared/platform/db/ensure-database';

/**
 * Database naming for one jest run. The run id is set by globalSetup and inherited by every
 * worker, so each run owns `rfq_t_<run>_*` and nothing else.
 */
export const BASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export function runId(): string {
  const id = process.env.RFQ_TEST_RUN_ID;
  if (!id) throw new Error('RFQ_TEST_RUN_ID is not set: run tests through jest (globalSetup sets it)');
  return id;
}

export const templateName = (run: string) => `rfq_t_${run}_template`;

export function urlFor(db: string): string {
  const u = new URL(BASE_URL);
  u.pathname = `/${db}`;
  return u.toString();
}

export async function withAdmin<T>(fn: (c: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: maintenanceUrl(BASE_URL) });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

export async function dropDatabase(c: Client, name: string): Promise<void> {
  await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
}
