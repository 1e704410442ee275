import type { NextFunction, Request, Response } from 'express';
import { ZodError } from 'zod';
import { AppError, dependencyOutage, DependencyUnavailableError, NotFoundError, PayloadTooLargeError, validationFromZod } from '../errors';

interface BodyParserError {
  type?: string;
  status?: number;
  limit?: number;
  expose?: boolean;
}

/** The project's error an error stands for (a body parser's, a zod parse's, an outage), or null for an unknown one (a bare 500). */
export function toAppError(err: unknown): AppError | null {
  if (err instanceof AppError) return err;
  if (err instanceof ZodError) return validationFromZod(err);
  const outage = dependencyOutage(err);
  if (outage) return outage;
  const bp = err as BodyParserError;
  switch (bp?.type) {
    case 'entity.parse.failed':
      return new AppError(400, 'invalid_json', 'invalid json');
    case 'entity.too.large':
      return new PayloadTooLargeError(bp.limit ?? 0);
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new AppError(415, 'unsupported_encoding', 'unsupported content encoding or charset');
    case 'request.aborted':
      return new AppError(400, 'request_aborted', 'request aborted');
  }
  // A path parameter with percent-encoding that does not decode (`/api/quote/%`): the router
  // throws a URIError marked 400 before any handler runs.
  if (err instanceof URIError && bp.status === 400) return new AppError(400, 'invalid_path', 'the path has malformed percent-encoding');
  // A body that does not match its Content-Encoding (not gzip, not deflate, not brotli):
  // body-parser hands on the decompressor's 400 without a type.
  if (bp?.expose === true && bp.status === 400) return new AppError(400, 'invalid_body_encoding', 'request body does not decode with its Content-Encoding');
  return null;
}

/** Unknown `/api/*` routes. */
export function notFound(req: Request, _res: Response, next: NextFunction) {
  next(new NotFoundError(`no route ${req.method} ${req.originalUrl.split('?')[0]}`, 'route_not_found'));
}

/**
 * Maps the project's errors to `{error, code, details?, request_id}`. Anything unknown is
 * logged with its stack and answered as a bare 500 that carries only the request id.
 */
export function errorHandler(err: unknown, req: Request, res: Response, _next: NextFunction) {
  const app = toAppError(err);
  if (res.headersSent) {
    req.log.error({ err }, 'error after headers were sent');
    res.end();
    return;
  }
  if (!app) {
    req.log.error({ err }, 'unhandled error');
    res.status(500).json({ error: 'internal error', code: 'internal_error', request_id: req.id });
    return;
  }
  if (app instanceof DependencyUnavailableError) req.log.warn({ code: app.code, err: app.cause }, 'dependency unavailable');
  else if (app.status >= 500) req.log.warn({ code: app.code, msg: app.message }, 'service error');
  for (const [k, v] of Object.entries(app.headers ?? {})) res.setHeader(k, v);
  res.status(app.status).json(errorBody(app, req.id));
}

/** The body an error is answered with (also reported, unsent, by the offer dry-run). */
export function errorBody(app: AppError, requestId: string) {
  return {
    error: app.message,
    code: app.code,
    ...(app.details && app.details.length > 0 ? { details: app.details } : {}),
    ...app.extra,
    request_id: requestId,
  };
}
