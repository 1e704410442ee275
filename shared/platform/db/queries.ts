import type { EntityManager } from 'typeorm';

/** A connection, a data source or a transaction's manager: whatever can run one statement. */
export type Queryable = Pick<EntityManager, 'query'>;

/** The rows an `UPDATE ... RETURNING` changed (TypeORM answers it with `[rows, affected]`). */
export async function updatedRows<T>(m: Queryable, sql: string, params: unknown[]): Promise<T[]> {
  const res: [T[], number] = await m.query(sql, params);
  return res[0];
}
