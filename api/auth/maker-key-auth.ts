import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { ForbiddenError, UnauthorizedError } from '../../shared/platform/errors';
import type { ApiContext } from '../context';
import { principalOf } from './principal';
import { step } from '../../shared/platform/tracing';

const WHAT = 'maker rights required: a maker API key, or the SIWE bearer of a maker organization member';

/** Maker rights: a maker API key (bot wallet), or a signed-in member of a maker organization. */
export function requireMakerRights(ctx: ApiContext): RequestHandler {
  return async (req: Request, _res: Response, next: NextFunction) => {
    const p = await principalOf(ctx, req);
    if (!p) throw new UnauthorizedError(WHAT, 'maker_rights_required');
    if (!(await step('auth.maker_rights', () => ctx.services.identity.hasMakerRights(p)))) throw new ForbiddenError(WHAT, 'maker_rights_required');
    next();
  };
}
