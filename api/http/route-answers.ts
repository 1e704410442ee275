import { PLATFORM_ERRORS as P, VALIDATION_FAILED, type ErrorCase } from './error-cases';
import { authDoc } from './route-security';
import type { ResponseSpec, RouteSpec, RouteMethod } from './route-spec';

/** Everything a route can answer: its success bodies and, per error status, the codes it may carry. */
export interface RouteAnswers {
  success: Map<number, ResponseSpec>;
  errors: Map<number, ErrorCase[]>;
}

const WRITES: ReadonlySet<RouteMethod> = new Set(['post', 'put', 'patch', 'delete', 'all']);

/** Node's HTTP parser reads every request first, whatever its path (shared/platform/http/parser-errors.ts). */
const HTTP_PARSER = [P.malformedRequest, P.requestTimeout, P.headersTooLarge];
/** Every request under /api goes through the JSON body parser (GETs with a body too). */
const BODY_PARSER = [P.invalidJson, P.requestAborted, P.invalidBodyEncoding, P.payloadTooLarge, P.unsupportedEncoding];
/** Every write under /api spends from the write budgets first (api/auth/write-limits.ts). */
const WRITE_LIMITS = [P.rateLimited, P.rateLimiterUnavailable];
/** A Postgres or Redis outage under any /api route is a 503 with Retry-After (shared/platform/errors/dependency-errors.ts). */
const OUTAGES = [P.databaseUnavailable, P.redisUnavailable];

function group(cases: readonly ErrorCase[]): Map<number, ErrorCase[]> {
  const out = new Map<number, ErrorCase[]>();
  for (const c of cases) {
    const list = out.get(c.status) ?? [];
    if (!list.some((x) => x.code === c.code)) list.push(c);
    out.set(c.status, list);
  }
  return new Map([...out].sort(([a], [b]) => a - b));
}

/** True when the route parses a request part that can fail (a 400 naming the field). */
function parsesInput(c: RouteSpec): boolean {
  const r = c.request;
  return (r.body !== undefined && (r.bodyCheck ?? 'spec') === 'spec') || r.query !== undefined || (r.params !== undefined && !r.paramsMiss);
}

/**
 * The route's own errors, those of its auth rule, and the platform's: Node's HTTP parser, the
 * body parser under /api, malformed path parameters, the write budgets, a dependency outage
 * under /api, and the bare 500 every route can answer.
 */
export function answersOf(c: RouteSpec): RouteAnswers {
  const underApi = c.path.startsWith('/api/');
  const cases: ErrorCase[] = [
    ...c.errors,
    ...authDoc(c.auth).errors,
    ...(parsesInput(c) ? [VALIDATION_FAILED] : []),
    ...HTTP_PARSER,
    ...(underApi ? BODY_PARSER : []),
    // Express decodes path parameters on every router: a malformed one is a 400 wherever the route is.
    ...(c.path.includes(':') ? [P.invalidPath] : []),
    ...(underApi && WRITES.has(c.method) ? WRITE_LIMITS : []),
    ...(underApi ? OUTAGES : []),
    P.internal,
  ];
  const success = new Map(Object.entries(c.responses).map(([s, spec]) => [Number(s), spec as ResponseSpec]));
  return { success, errors: group(cases) };
}

/**
 * What a request that matches no route answers: 404, unless the platform answered first (a
 * request the HTTP parser refused, a bad body, a write over budget, a path that another
 * method's template failed to decode).
 */
export function fallbackAnswers(method: string): RouteAnswers {
  const write = WRITES.has(method.toLowerCase() as RouteMethod);
  return { success: new Map(), errors: group([P.routeNotFound, ...HTTP_PARSER, ...BODY_PARSER, P.invalidPath, ...(write ? WRITE_LIMITS : []), P.internal]) };
}
