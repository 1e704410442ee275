import type { Queryable } from '../../shared/platform/db';

export type { Queryable };

/** TypeORM returns `[rows, affected]` for UPDATE/DELETE and plain rows otherwise; this gives both shapes one form. */
export async function exec<T = Record<string, unknown>>(m: Queryable, sql: string, params: unknown[] = []): Promise<{ rows: T[]; count: number }> {
  const res: unknown = await m.query(sql, params);
  if (Array.isArray(res) && res.length === 2 && Array.isArray(res[0]) && typeof res[1] === 'number') {
    return { rows: res[0] as T[], count: res[1] };
  }
  const rows = (Array.isArray(res) ? res : []) as T[];
  return { rows, count: rows.length };
}

export interface Column<R> {
  name: string;
  /** Postgres type of the column: text, bigint, numeric, integer, boolean, jsonb, smallint[]... */
  type: string;
  /** The column's value; omitted, the row's property of the same name. */
  value?: (row: R) => unknown;
}

/**
 * One INSERT for a whole batch: the rows travel as a single JSON array parameter that
 * `json_to_recordset` turns back into typed rows. One round trip and one parameter whatever the
 * row count; JSON is also the cheapest encoding on both sides (V8's JSON.stringify, Postgres'
 * JSON parser), far cheaper than array literals with per-element escaping.
 * `constants` (the chain id) are bound once as $2.. and repeated in every row.
 */
export async function insertMany<R>(
  m: Queryable,
  table: string,
  rows: readonly R[],
  columns: Column<R>[],
  opts: { constants?: { name: string; value: unknown; type: string }[]; suffix?: string } = {},
): Promise<void> {
  if (rows.length === 0) return;
  const constants = opts.constants ?? [];
  // Rows whose properties are named like the columns are serialised as they are (the big
  // tables), saving a copy of every row; json_to_recordset ignores properties it is not asked for.
  const payload = columns.every((c) => !c.value)
    ? rows
    : rows.map((row) => {
        const o: Record<string, unknown> = {};
        for (const c of columns) o[c.name] = c.value ? c.value(row) : (row as Record<string, unknown>)[c.name];
        return o;
      });
  const names = [...constants.map((c) => c.name), ...columns.map((c) => c.name)];
  const selects = [...constants.map((c, i) => `$${i + 2}::${c.type}`), ...columns.map((c) => `x.${c.name}`)];
  await m.query(
    `INSERT INTO ${table} (${names.join(', ')})
     SELECT ${selects.join(', ')} FROM json_to_recordset($1::json) AS x(${columns.map((c) => `${c.name} ${c.type}`).join(', ')}) ${opts.suffix ?? ''}`,
    [JSON.stringify(payload), ...constants.map((c) => c.value)],
  );
}
