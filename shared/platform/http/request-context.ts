import { randomUUID } from 'node:crypto';
import { context } from '@opentelemetry/api';
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from '../logging';

declare module 'express-serve-static-core' {
  interface Request {
    id: string;
    log: Logger;
    /** The template of the route answering the request (`/api/quote/:id`), set when its chain begins. */
    routeTemplate?: string;
  }
}

const SAFE_ID = /^[A-Za-z0-9._-]{8,128}$/;

/**
 * The route template that answered a request (`/api/quote/:id`), once routed; null for none.
 * The template the route stamped when its chain began, which holds after Express has left its
 * router (an error answered by the app's handler): the router's own `req.route` and `req.baseUrl`
 * then name the route without its mount path.
 */
export function routeOf(req: Request): string | null {
  if (req.routeTemplate !== undefined) return req.routeTemplate;
  const routePath = (req.route as { path?: unknown } | undefined)?.path;
  return routePath ? `${req.baseUrl}${String(routePath)}` : null;
}

/**
 * Gives each request an id (the caller's `X-Request-Id` when it is sane) and a child logger
 * that stamps it on every line, then logs one line when the response is done. The query
 * string is never logged: it may carry a stream token.
 */
export function requestContext(logger: Logger) {
  return (req: Request, res: Response, next: NextFunction) => {
    const incoming = req.get('x-request-id');
    req.id = incoming && SAFE_ID.test(incoming) ? incoming : randomUUID();
    // Made on first use: building a child logger costs more than most requests ever log.
    let log: Logger | undefined;
    Object.defineProperty(req, 'log', { get: () => (log ??= logger.child({ request_id: req.id })), configurable: true });
    res.setHeader('X-Request-Id', req.id);
    const started = process.hrtime.bigint();
    // Bound to the request's context: the line carries its trace id, when the request is traced.
    res.on(
      'finish',
      context.bind(context.active(), () => {
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        const route = routeOf(req) ?? req.path;
        const line = { method: req.method, route, status: res.statusCode, ms: Math.round(ms * 10) / 10 };
        const stamped = { request_id: req.id, ...line };
        if (res.statusCode >= 500) logger.error(stamped, 'request failed');
        else logger.info(stamped, 'request');
      }),
    );
    next();
  };
}
