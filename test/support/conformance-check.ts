import { z } from 'zod';
import { errorBodySchema } from '../../api/http/error-cases';
import { pathPattern } from '../../api/http/path-template';
import { answersOf, fallbackAnswers, type RouteAnswers } from '../../api/http/route-answers';
import type { NamedRouteSpec } from '../../api/http/route-spec';

/** The parts of an HTTP answer the check reads (a supertest Response has them). */
export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
  text: string;
}

/** The spec Express would run for `method path`: the first mounted match, as Express picks it. */
export function matchRoute(specs: readonly NamedRouteSpec[], method: string, path: string): NamedRouteSpec | undefined {
  const m = method.toLowerCase();
  return specs.find((c) => (c.method === 'all' || c.method === m || (m === 'head' && c.method === 'get')) && pathPattern(c.path).test(path));
}

function bodyProblem(schema: z.ZodType, value: unknown): string | null {
  const r = schema.safeParse(value);
  return r.success ? null : z.prettifyError(r.error);
}

function declared(a: RouteAnswers): string {
  const errors = [...a.errors].map(([s, cases]) => `${s} (${cases.map((c) => c.code).join(', ')})`);
  return [...[...a.success.keys()].map(String), ...errors].join('; ');
}

/**
 * Why `answer` breaks the spec of the route `method path` matched, or null when it keeps it:
 * an undeclared status, a success body off its schema, an error body off ErrorBody or with a code
 * the route does not declare for that status. A path no route matches must get the fallback
 * answers (404, or what the platform answers first); so must an OPTIONS that CORS did not answer.
 */
export function specViolation(specs: readonly NamedRouteSpec[], method: string, path: string, answer: Answer): string | null {
  const what = `${method.toUpperCase()} ${path} answered ${answer.status}`;
  // A preflight from an allowed Origin is answered by CORS; outside /api, Express answers any
  // other OPTIONS of a known path with its Allow list; under /api only an `all` route takes it.
  const options = method.toLowerCase() === 'options';
  if (options && answer.status === 204) return null;
  if (options && answer.status === 200 && !path.startsWith('/api/') && specs.some((c) => pathPattern(c.path).test(path))) return null;
  const route = matchRoute(specs, method, path);
  const answers = route ? answersOf(route) : fallbackAnswers(method);
  const name = route ? `route ${route.id}` : 'the answer to unmatched paths';
  const contentType = String(answer.headers['content-type'] ?? '');
  const head = method.toLowerCase() === 'head';

  const success = answers.success.get(answer.status);
  if (success) {
    if (head) return null;
    const type = success.contentType ?? 'application/json';
    if (!contentType.startsWith(type)) return `${what} as ${contentType}; ${name} declares ${type}`;
    const problem = bodyProblem(success.schema, type === 'application/json' ? answer.body : answer.text);
    return problem ? `${what} with a body off ${name}'s schema:\n${problem}` : null;
  }
  const cases = answers.errors.get(answer.status);
  if (!cases) return `${what}, which ${name} does not declare (declared: ${declared(answers)}); body ${answer.text.slice(0, 300)}`;
  if (head) return null;
  if (!contentType.startsWith('application/json')) return `${what} as ${contentType}; errors are application/json`;
  const problem = bodyProblem(errorBodySchema, answer.body);
  if (problem) return `${what} with an error body off ErrorBody:\n${problem}`;
  const body = answer.body as z.output<typeof errorBodySchema>;
  if (!cases.some((c) => c.code === body.code)) {
    return `${what} with code ${body.code}, which ${name} does not declare for ${answer.status} (declared: ${cases.map((c) => c.code).join(', ')}); error: ${body.error}`;
  }
  if (body.request_id !== answer.headers['x-request-id']) return `${what} with request_id ${body.request_id}, not its X-Request-Id header`;
  return null;
}
