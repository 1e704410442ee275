import type { NextFunction, Request, Response } from 'express';
import type { AppError } from '../../shared/platform/errors';
import { toAppError } from '../../shared/platform/http/error-handler';

/** `POST /api/quote/:id/dry-run` as the /api router sees it: case-insensitive, a trailing slash forgiven, as Express matches routes. */
export function isOfferDryRun(req: Request): boolean {
  return req.method === 'POST' && /^\/quote\/[^/]+\/dry-run\/*$/i.test(req.path);
}

const BODY_REFUSALS = new WeakMap<Request, AppError>();

/**
 * Mounted right behind the /api JSON body parser. A body the parser refuses (malformed JSON,
 * too large, an unknown charset) is refused there by the real offer routes too, before any of
 * their checks; a dry-run keeps that refusal to report in its 200 instead of answering it (the
 * handler reads it with `dryRunBodyRefusal`). Any other route's error goes on to the error handler.
 */
export function keepDryRunBodyRefusal(err: unknown, req: Request, _res: Response, next: NextFunction): void {
  const refusal = isOfferDryRun(req) ? toAppError(err) : null;
  if (!refusal || refusal.status >= 500) return next(err);
  BODY_REFUSALS.set(req, refusal);
  req.body = undefined;
  next();
}

/** The body parser's refusal of this dry-run's body, if it refused it. */
export function dryRunBodyRefusal(req: Request): AppError | undefined {
  return BODY_REFUSALS.get(req);
}
