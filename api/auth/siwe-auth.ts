import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { UnauthorizedError } from '../../shared/platform/errors';
import type { OrgKind } from '../../shared/identity';
import type { ApiContext } from '../context';
import { principalOf } from './principal';

function siweRequired(): UnauthorizedError {
  return new UnauthorizedError('SIWE bearer required: sign in with GET /api/login/nonce and POST /api/login', 'siwe_required');
}

/** A signed-in wallet (SIWE session bearer); API keys and delegates are refused. */
export function requireSiwe(ctx: ApiContext): RequestHandler {
  return async (req: Request, _res: Response, next: NextFunction) => {
    const p = await principalOf(ctx, req);
    if (p?.kind !== 'siwe') throw siweRequired();
    next();
  };
}

/**
 * A signed-in wallet holding admin, owner or manager in an organization of `kind`; its
 * membership lands on `req.membership`. Maker keys never manage keys: only the admin's wallet does.
 */
export function requireOrgManager(ctx: ApiContext, kind: OrgKind): RequestHandler {
  return async (req: Request, _res: Response, next: NextFunction) => {
    const p = await principalOf(ctx, req);
    if (p?.kind !== 'siwe') throw siweRequired();
    req.membership = await ctx.services.identity.orgs.requireManager(p.address, kind);
    next();
  };
}
