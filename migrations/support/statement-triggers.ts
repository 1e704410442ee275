import type { QueryRunner } from 'typeorm';

/**
 * Statement-level triggers with transition tables, for read models that sum another table
 * (migrations SummaryReadModels1764007700000 and BookLevels1764007700100): one trigger per
 * event (a trigger with transition tables takes one event), all calling one function that sees
 * the statement's rows signed +1 (new) and -1 (old), so an insert, an update and a delete of
 * the source each move the sums by the same delta, once per statement.
 *
 * Frozen with the migrations that use it: what it emits is part of their history, so a change
 * here is a new helper for a new migration, never an edit.
 */

type Op = 'INSERT' | 'DELETE' | 'UPDATE';

/**
 * A plpgsql trigger function running `body(op)` for each kind of statement; in the body,
 * `%SRC(columns)%OP` stands for the statement's rows as `(columns..., sign)`.
 */
export function statementTrigger(name: string, body: (op: Op) => string): string {
  const src = (cols: string): Record<Op, string> => ({
    INSERT: `(SELECT ${cols}, 1 AS sign FROM new_rows)`,
    DELETE: `(SELECT ${cols}, -1 AS sign FROM old_rows)`,
    UPDATE: `(SELECT ${cols}, 1 AS sign FROM new_rows UNION ALL SELECT ${cols}, -1 AS sign FROM old_rows)`,
  });
  return `CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $fn$
    BEGIN
      IF TG_OP = 'INSERT' THEN ${body('INSERT')}
      ELSIF TG_OP = 'DELETE' THEN ${body('DELETE')}
      ELSE ${body('UPDATE')}
      END IF;
      RETURN NULL;
    END $fn$`.replace(/%SRC\((.*?)\)%(INSERT|DELETE|UPDATE)/g, (_m, cols: string, op: Op) => src(cols)[op]);
}

/** The three statement triggers of `table` (named `<table>_ins`, `_upd`, `_del`) calling `fn`. */
export async function statementTriggers(q: QueryRunner, table: string, fn: string): Promise<void> {
  await q.query(`CREATE TRIGGER ${table}_ins AFTER INSERT ON ${table} REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ${fn}()`);
  await q.query(
    `CREATE TRIGGER ${table}_upd AFTER UPDATE ON ${table} REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ${fn}()`,
  );
  await q.query(`CREATE TRIGGER ${table}_del AFTER DELETE ON ${table} REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION ${fn}()`);
}

/** Drops the three triggers `statementTriggers` made on `table`. */
export async function dropStatementTriggers(q: QueryRunner, table: string): Promise<void> {
  for (const s of ['ins', 'upd', 'del']) await q.query(`DROP TRIGGER ${table}_${s} ON ${table}`);
}
