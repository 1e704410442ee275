import type { z } from 'zod';
import { validationFromZod } from '../errors/zod-problems';

/** Parses untrusted input with a schema; a failure becomes a 400 naming each bad field. */
export function parseOrThrow<S extends z.ZodType>(schema: S, input: unknown, root = ''): z.output<S> {
  const r = schema.safeParse(input);
  if (!r.success) throw validationFromZod(r.error, root);
  return r.data;
}
