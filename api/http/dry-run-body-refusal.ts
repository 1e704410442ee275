import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { AppError } from '../../shared/platform/errors';
import { toAppError } from '../../shared/platform/http/error-handler';
import { isOfferDryRun } from '../auth/budgeted-writes';

const BODY_REFUSALS = new WeakMap<Request, AppError>();

/**
 * The /api JSON body parser, but a body it refuses on a dry-run (malformed JSON, too large, an
 * unknown charset) is kept instead of answered. The real offer routes refuse such a body there,
 * before any of their checks; the dry-run reports that refusal in its 200 (the handler reads it
 * with `dryRunBodyRefusal`). Only the parser's own errors are kept: a rate limit or an auth
 * refusal of the dry-run itself never passes through here.
 */
export function keepingDryRunBodyRefusal(parse: RequestHandler): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) =>
    parse(req, res, (err?: unknown) => {
      const refusal = err !== undefined && isOfferDryRun(req) ? toAppError(err) : null;
      if (!refusal || refusal.status >= 500) return next(err);
      BODY_REFUSALS.set(req, refusal);
      req.body = undefined;
      next();
    });
}

/** The body parser's refusal of this dry-run's body, if it refused it. */
export function dryRunBodyRefusal(req: Request): AppError | undefined {
  return BODY_REFUSALS.get(req);
}
