import type { DataSource } from 'typeorm';
import { primaryNodes, type Redis } from '../../shared/platform/redis';

/** One Redis key under the test's prefix (prefix taken off) and its time to live in ms (-1: none). */
export interface RedisKey {
  key: string;
  ttlMs: number;
}

/**
 * A family of Redis keys in docs/SECURITY.md's table of what an anonymous caller can create:
 * its pattern (without the prefix), the most keys it may hold after the burst the test sent,
 * and the longest time to live any of them may have, in seconds (`null`: the family keeps no
 * expiry; its bound is the count alone).
 */
export interface Family {
  name: string;
  pattern: RegExp;
  max: number;
  ttlMaxSeconds: number | null;
}

/** Every key under `prefix`, on every master, with its PTTL. */
export async function redisKeys(redis: Redis, prefix: string): Promise<RedisKey[]> {
  const out: RedisKey[] = [];
  for (const node of primaryNodes(redis)) {
    let cursor = '0';
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      cursor = next;
      const ttls = await Promise.all(keys.map((k) => node.pttl(k)));
      keys.forEach((k, i) => out.push({ key: k.slice(prefix.length), ttlMs: ttls[i] }));
    } while (cursor !== '0');
  }
  return out;
}

/** What the census found against the families: keys no family names, and each family's breaches. */
export interface CensusReport {
  unknown: string[];
  counts: Record<string, number>;
  breaches: string[];
}

/**
 * Sorts `keys` into `families` (the first whose pattern matches) and checks each family's count
 * and every key's time to live against the family's bounds. A key of no family is state the table
 * does not list: reported, as a breach would be.
 */
export function census(keys: readonly RedisKey[], families: readonly Family[]): CensusReport {
  const counts: Record<string, number> = Object.fromEntries(families.map((f) => [f.name, 0]));
  const unknown: string[] = [];
  const breaches: string[] = [];
  for (const k of keys) {
    const f = families.find((x) => x.pattern.test(k.key));
    if (!f) {
      unknown.push(k.key);
      continue;
    }
    counts[f.name]++;
    if (f.ttlMaxSeconds !== null) {
      if (k.ttlMs < 0) breaches.push(`${f.name}: ${k.key} has no expiry`);
      else if (k.ttlMs > f.ttlMaxSeconds * 1000) breaches.push(`${f.name}: ${k.key} lives ${k.ttlMs} ms, more than ${f.ttlMaxSeconds} s`);
    }
  }
  for (const f of families) if (counts[f.name] > f.max) breaches.push(`${f.name}: ${counts[f.name]} keys, more than ${f.max}`);
  return { unknown, counts, breaches };
}

/** Row counts of every table of the service's schema (the indexer's own tables follow the chain, not callers). */
export async function rowCounts(db: DataSource): Promise<Record<string, number>> {
  const tables: { table_name: string }[] = await db.query(
    `SELECT table_name FROM information_schema.tables
      WHERE table_schema = 'public' AND table_type = 'BASE TABLE' AND table_name NOT LIKE 'indexer\\_%' AND table_name NOT LIKE 'test\\_%'
      ORDER BY 1`,
  );
  const out: Record<string, number> = {};
  for (const { table_name: t } of tables) out[t] = ((await db.query(`SELECT count(*)::int AS n FROM "${t}"`)) as { n: number }[])[0].n;
  return out;
}

/** Tables whose row count grew between two `rowCounts`, with how much. */
export function grown(before: Record<string, number>, after: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(after).flatMap(([t, n]) => (n > (before[t] ?? 0) ? [[t, n - (before[t] ?? 0)]] : [])));
}
