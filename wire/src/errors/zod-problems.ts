import type { ZodError } from 'zod';
import { ValidationError, type FieldProblem } from './app-error';

/** Renders a zod path the way clients write it: `intents[1].strike_wad`. */
export function formatPath(path: readonly PropertyKey[], root = ''): string {
  let out = root;
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else out += out.length === 0 ? String(seg) : `.${String(seg)}`;
  }
  return out.length === 0 ? '(body)' : out;
}

/** One problem per bad field, first message wins for each path. */
export function zodProblems(error: ZodError, root = ''): FieldProblem[] {
  const seen = new Map<string, string>();
  for (const issue of error.issues) {
    const path = formatPath(issue.path, root);
    if (!seen.has(path)) seen.set(path, issue.message);
  }
  return [...seen].map(([path, message]) => ({ path, message }));
}

export function validationFromZod(error: ZodError, root = ''): ValidationError {
  const details = zodProblems(error, root);
  const summary = details.length === 1 ? `${details[0].path}: ${details[0].message}` : `${details.length} invalid fields`;
  return new ValidationError(details, `invalid request: ${summary}`);
}
