import { Client } from 'pg';

/** Database name of a postgres URL. */
export function databaseName(url: string): string {
  const name = decodeURIComponent(new URL(url).pathname.replace(/^\//, ''));
  if (!/^[A-Za-z0-9_-]{1,63}$/.test(name)) throw new Error(`database name ${JSON.stringify(name)} must be 1-63 of [A-Za-z0-9_-]`);
  return name;
}

/** The same server's maintenance database, to create or drop others from. */
export function maintenanceUrl(url: string): string {
  const u = new URL(url);
  u.pathname = '/postgres';
  return u.toString();
}

/** Creates the database named in `url` when it is missing; safe against a concurrent creator. */
export async function ensureDatabase(url: string): Promise<boolean> {
  const name = databaseName(url);
  const client = new Client({ connectionString: maintenanceUrl(url), connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount) return false;
    try {
      await client.query(`CREATE DATABASE "${name}"`);
    } catch (err) {
      // 42P04 duplicate_database: another process won the race, which is fine.
      if ((err as { code?: string }).code !== '42P04') throw err;
      return false;
    }
    return true;
  } finally {
    await client.end();
  }
}
