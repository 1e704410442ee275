import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from '../logging';

declare module 'express-serve-static-core' {
  interface Request {
    id: string;
    log: Logger;
  }
}

const SAFE_ID = /^[A-Za-z0-9._-]{8,128}$/;

/**
 * Gives each request an id (the caller's `X-Request-Id` when it is sane) and a child logger
 * that stamps it on every line, then logs one line when the response is done. The query
 * string is never logged: it may carry a stream token.
 */
export function requestContext(logger: Logger) {
  return (req: Request, res: Response, next: NextFunction) => {
    const incoming = req.get('x-request-id');
    req.id = incoming && SAFE_ID.test(incoming) ? incoming : randomUUID();
    req.log = logger.child({ request_id: req.id });
    res.setHeader('X-Request-Id', req.id);
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const route = req.route?.path ? `${req.baseUrl}${String(req.route.path)}` : req.path;
      const line = { method: req.method, route, status: res.statusCode, ms: Math.round(ms * 10) / 10 };
      if (res.statusCode >= 500) req.log.error(line, 'request failed');
      else req.log.info(line, 'request');
    });
    next();
  };
}
