import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { UnauthorizedError } from '../../shared/platform/errors';
import type { ApiContext } from '../context';
import { principalOf } from './principal';

/**
 * POST /api/taker/delegate: a taker API key as bearer, or the taker admin's SIWE bearer (whose
 * membership lands on `req.membership`; the handler then also requires a signed statement).
 */
export function requireDelegateMinter(ctx: ApiContext): RequestHandler {
  return async (req: Request, _res: Response, next: NextFunction) => {
    const p = await principalOf(ctx, req);
    if (p?.kind === 'taker_key') return next();
    if (p?.kind === 'siwe') {
      req.membership = await ctx.services.identity.orgs.requireManager(p.address, 'taker');
      return next();
    }
    throw new UnauthorizedError('a taker API key, or the taker admin SIWE bearer with a signed statement, is required', 'taker_auth_required');
  };
}
