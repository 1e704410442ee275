import type { Express, Request, RequestHandler, Response, Router } from 'express';
import type { z } from 'zod';
import { validationFromZod } from '../../shared/platform/errors';
import { parseOrThrow } from '../../shared/platform/validation';
import { noStore, publicCache } from '../../shared/platform/http/cache';
import { routeAuth } from '../auth';
import type { ApiContext } from '../context';
import { sentAsWriteJson } from './write-answer';
import { Reply, type NamedRouteSpec, type RouteBinding, type RouteSpec, type RouteHandler } from './route-spec';

/** A spec with the handler that answers it. */
export interface BoundRoute {
  spec: NamedRouteSpec;
  binding: RouteBinding<RouteSpec>;
}

/** The specs each app was built from: the API tests check its answers against them. */
const MOUNTED = new WeakMap<Express, readonly NamedRouteSpec[]>();

export function recordRouteSpecs(app: Express, specs: readonly NamedRouteSpec[]): void {
  MOUNTED.set(app, specs);
}

/** The specs `app` mounts, or undefined for an app not built from specs. */
export function routeSpecsOf(app: Express): readonly NamedRouteSpec[] | undefined {
  return MOUNTED.get(app);
}

/** Explore routes each get their own `:explore` rate-limit bucket, named by the route id. */
function authMiddleware(ctx: ApiContext, c: NamedRouteSpec): RequestHandler[] {
  const auth = c.auth;
  if ('streamToken' in auth) return [];
  return auth.action === 'explore' ? routeAuth(ctx, 'explore', auth.challenge, c.id) : routeAuth(ctx, auth.action);
}

function parsePart(schema: z.ZodType | undefined, raw: unknown): unknown {
  return schema === undefined ? {} : parseOrThrow(schema, raw);
}

/** Each request part through its schema: params first (an id that cannot exist is a 404 when the spec says so), then query, headers, body. */
function parseInput(c: RouteSpec, req: Request) {
  const r = c.request;
  let params: unknown = {};
  if (r.params) {
    const parsed = r.params.safeParse(req.params);
    if (!parsed.success) throw r.paramsMiss ? r.paramsMiss(req.params as Record<string, string>) : validationFromZod(parsed.error);
    params = parsed.data;
  }
  const check = r.bodyCheck ?? 'spec';
  return {
    params,
    query: parsePart(r.query, req.query),
    headers: parsePart(r.headers, req.headers),
    body: r.body === undefined ? undefined : check === 'spec' ? parseOrThrow(r.body, req.body as unknown) : (req.body as unknown),
  };
}

/** The one success status of a spec, for handlers that answer a bare body. */
function defaultStatus(c: NamedRouteSpec): number {
  const statuses = Object.keys(c.responses).map(Number);
  if (statuses.length !== 1) throw new Error(`route ${c.id} declares ${statuses.length} success statuses; its handler must answer with a Reply`);
  return statuses[0];
}

/** Routes whose answers change state: never stored, so never revalidated by an ETag. */
const WRITE_METHODS = new Set<RouteSpec['method']>(['post', 'put', 'patch', 'delete']);

function answer(c: NamedRouteSpec, handle: RouteHandler<RouteSpec>): RequestHandler {
  const status = Object.keys(c.responses).length === 1 ? defaultStatus(c) : undefined;
  const write = WRITE_METHODS.has(c.method);
  return async (req: Request, res: Response) => {
    const out: unknown = await handle(parseInput(c, req) as never, req, res);
    const reply = out instanceof Reply ? out : new Reply(status ?? defaultStatus(c), out);
    for (const [k, v] of Object.entries(reply.headers)) res.setHeader(k, v);
    const spec = c.responses[reply.status as keyof typeof c.responses];
    if (spec?.contentType && spec.contentType !== 'application/json') {
      res.status(reply.status);
      // A handler may set its own (the Prometheus registry names its exposition format).
      if (!res.get('Content-Type')) res.type(spec.contentType);
      res.send(reply.body);
    } else if (!(write && sentAsWriteJson(res, reply.status, reply.body))) res.status(reply.status).json(reply.body);
  };
}

/**
 * What one route runs, in order: its name on the request (the template the access log and the
 * span give it) with its Cache-Control, its own middleware (a per-route rate limit), its auth
 * rule's middleware, then its handler with the parsed input.
 */
export function routeChain(ctx: ApiContext, { spec: c, binding }: BoundRoute): RequestHandler[] {
  const cache = c.cache === 'public' ? publicCache(ctx.config.PUBLIC_CACHE_SECONDS) : noStore;
  const named: RequestHandler = (req, res, next) => {
    req.routeTemplate = c.path;
    cache(req, res, next);
  };
  const { before, handle } = typeof binding === 'function' ? { before: [], handle: binding } : binding;
  return [named, ...before, ...authMiddleware(ctx, c), answer(c, handle)];
}

/** Mounts routes on `router`, which serves the paths under `base` (`/api`, or '' for the app), each with its `routeChain`. */
export function mountRoutes(router: Router, base: string, routes: readonly BoundRoute[], ctx: ApiContext): void {
  for (const route of routes) {
    const c = route.spec;
    if (!c.path.startsWith(`${base}/`)) throw new Error(`route ${c.id} (${c.path}) is not under ${base}/`);
    router[c.method](c.path.slice(base.length), routeChain(ctx, route));
  }
}
