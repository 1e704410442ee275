/**
 * Express path templates (`/api/quote/:id`) as the other tools need them. Express matches
 * case-insensitively, forgives one trailing slash, and a parameter is one non-empty segment.
 */

const PARAM = /:([A-Za-z_][A-Za-z0-9_]*)/g;

/** `/api/quote/{id}`: the OpenAPI spelling. */
export function openApiPath(template: string): string {
  return template.replace(PARAM, '{$1}');
}

/** The parameter names of a template, in order. */
export function pathParamNames(template: string): string[] {
  return [...template.matchAll(PARAM)].map((m) => m[1]);
}

/** A matcher for request paths (without the query string), as Express would match them. */
export function pathPattern(template: string): RegExp {
  const parts = template.split(PARAM);
  // split() with a capturing group alternates literal text and parameter names.
  const source = parts.map((part, i) => (i % 2 === 1 ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('');
  return new RegExp(`^${source}/?$`, 'i');
}
