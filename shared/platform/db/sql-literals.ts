export type SqlLiterals<T extends string> = { readonly [K in T]: `'${K}'` };

/**
 * Each name of a state or phase list as a quoted SQL literal, for interpolation into SQL text
 * (`QUOTE_STATE_SQL.open` is `'open'`): the text stays what it was, and a name not in the list
 * is a type error. Only plain lower-case names are accepted, so nothing needs escaping.
 */
export function sqlLiterals<const T extends string>(names: readonly T[]): SqlLiterals<T> {
  for (const n of names) if (!/^[a-z_]+$/.test(n)) throw new Error(`not a plain SQL literal: ${n}`);
  return Object.freeze(Object.fromEntries(names.map((n) => [n, `'${n}'`]))) as SqlLiterals<T>;
}
