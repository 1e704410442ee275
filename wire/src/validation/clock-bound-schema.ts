/**
 * zod parses without a context, so a rule against the clock ("must be in the future") is built
 * into its schema. Building (and compiling) a schema costs far more than parsing with one, so
 * the schema of the latest arguments (the clock's second, a configured limit) is kept and
 * reused until they change.
 */
export function rebuiltWhenChanged<A extends readonly (string | number)[], S>(build: (...args: A) => S): (...args: A) => S {
  let last: { key: string; schema: S } | undefined;
  return (...args: A) => {
    const key = args.join('\u0000');
    if (last?.key !== key) last = { key, schema: build(...args) };
    return last.schema;
  };
}
