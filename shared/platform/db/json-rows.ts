/**
 * Rows sent to Postgres as ONE jsonb parameter and read back by `jsonb_to_recordset` (or
 * `jsonb_to_record`), instead of one array parameter per column: `pg` turns each array into an
 * array literal element by element (its `arrayString`), the largest allocation of a quote create
 * that was not the request's own data (docs/PERFORMANCE.md, issue #41), where `JSON.stringify`
 * writes the rows' objects in one pass.
 *
 * A key missing from the JSON reads as NULL, so each repository declares its row's columns keyed
 * by the row's own type (`satisfies JsonColumns<keyof Row>`): a column added to the row and not to
 * the declaration does not compile. Exact values stay exact: numeric values travel as the strings
 * they are in JavaScript, integers as the digits `String(n)` writes (what pg sent in its array
 * literals), and each goes through its SQL type's own input function; a `Date` travels as its ISO
 * time (`toJSON`), to the millisecond, like pg's own `dateToString`; `null` stays NULL; a nested
 * object goes to a jsonb column as it is. Text that JSON cannot carry to Postgres (NUL, a lone
 * surrogate) is refused, as the array literals refused NUL.
 */

/** Each column a JSON row carries, by its key, with the SQL type it is read as. */
export type JsonColumns<K extends string> = Readonly<Record<K, string>>;

/** `a uuid, b integer, ...`: the column definition list `json_to_recordset(...) AS r(...)` takes. */
export function columnDefinitions(cols: JsonColumns<string>): string {
  return Object.entries(cols)
    .map(([name, type]) => `${name} ${type}`)
    .join(', ');
}

/** `a, b, ...`: the columns' names in the declaration's order (an INSERT's column list). */
export function columnNames(cols: JsonColumns<string>): string {
  return Object.keys(cols).join(', ');
}
