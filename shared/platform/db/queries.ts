import type { EntityManager } from 'typeorm';

/** A connection, a data source or a transaction's manager: whatever can run one statement. */
export type Queryable = Pick<EntityManager, 'query'>;

/** The rows an `UPDATE ... RETURNING` changed (TypeORM answers it with `[rows, affected]`). */
export async function updatedRows<T>(m: Queryable, sql: string, params: unknown[]): Promise<T[]> {
  const res: [T[], number] = await m.query(sql, params);
  return res[0];
}

/** SQL for "`column` lies more than `$1` seconds in the past": `$1` is the sweeper's grace. */
export function pastGrace(column: string, op: '<' | '<=' = '<'): string {
  return `${column} ${op} now() - make_interval(secs => $1)`;
}

/**
 * The ids of up to `limit` rows of `from` that match `where`, first by `orderBy`: the form of
 * every sweeper's "rows in state X past time Y" read. In `where`, `$1` is `graceSeconds` (see
 * pastGrace); table, condition and order are the caller's own SQL text, never input.
 */
export async function idsWhere(m: Queryable, q: { from: string; where: string; orderBy: string }, graceSeconds: number, limit: number): Promise<string[]> {
  const rows: { id: string }[] = await m.query(`SELECT id FROM ${q.from} WHERE ${q.where} ORDER BY ${q.orderBy} LIMIT $2`, [graceSeconds, limit]);
  return rows.map((r) => r.id);
}

/** The results of independent reads, in the order of the functions that make them. */
export type ReadResults<T extends readonly (() => Promise<unknown>)[]> = { [K in keyof T]: Awaited<ReturnType<T[K]>> };

/**
 * Independent reads, side by side on a pool (each takes a connection of its own), or one after
 * another on one connection: a transaction's, which runs one query at a time. pg 8 queues a query
 * sent to a busy connection and warns ("Calling client.query() when the client is already
 * executing a query"); pg 9 refuses it.
 */
export async function independentReads<T extends readonly (() => Promise<unknown>)[]>(oneConnection: boolean, ...fns: T): Promise<ReadResults<T>> {
  if (!oneConnection) return (await Promise.all(fns.map((f) => f()))) as ReadResults<T>;
  const out: unknown[] = [];
  for (const f of fns) out.push(await f());
  return out as ReadResults<T>;
}
