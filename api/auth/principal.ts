import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { UnauthorizedError } from '../../shared/platform/errors';
import type { Membership, Principal } from '../../shared/identity';
import type { ApiContext } from '../context';

declare module 'express-serve-static-core' {
  interface Request {
    /** Who the bearer speaks for: unset until resolved, null when absent or invalid. */
    principal?: Principal | null;
    /** The caller's organization membership, set by the organization-manager middleware. */
    membership?: Membership;
  }
}

const BEARER = /^Bearer[ ]+(\S+)[ ]*$/i;

/** The raw credential of `Authorization: Bearer <token>`, or null. */
export function bearerOf(req: Request): string | null {
  const header = req.get('authorization');
  if (!header) return null;
  const m = BEARER.exec(header);
  return m ? m[1] : null;
}

/** True when the request carries an Authorization header at all (valid or not). */
export function presentsBearer(req: Request): boolean {
  return req.get('authorization') !== undefined;
}

/**
 * Resolves the request's bearer once and keeps it on `req.principal`, so every middleware of a
 * route (and the handler) sees the same principal without a second lookup.
 */
export async function principalOf(ctx: ApiContext, req: Request): Promise<Principal | null> {
  if (req.principal !== undefined) return req.principal;
  const raw = bearerOf(req);
  req.principal = raw ? await ctx.services.identity.resolveBearer(raw) : null;
  return req.principal;
}

/** Optional bearer: none is fine, but one that is presented must be valid, and a raw taker key is no bearer here. */
export function optionalBearer(ctx: ApiContext): RequestHandler {
  return async (req: Request, _res: Response, next: NextFunction) => {
    const p = await principalOf(ctx, req);
    if (p === null && presentsBearer(req)) {
      throw new UnauthorizedError('invalid, expired or revoked bearer token', 'invalid_bearer');
    }
    if (p?.kind === 'taker_key') throw takerKeyNotBearer();
    next();
  };
}

/**
 * A raw taker API key speaks for an integrator's backend, not for a wallet or a user: it is a
 * bearer only for POST /api/taker/delegate (docs/AUTH.md). Elsewhere: 401 naming what to use.
 */
export function takerKeyNotBearer(): UnauthorizedError {
  return new UnauthorizedError(
    'a raw taker API key is a bearer only for POST /api/taker/delegate: mint a delegate there and send the delegate JWT as the bearer',
    'taker_key_not_a_bearer',
  );
}

/** Any authenticated wallet: a SIWE session, a delegate or a maker key (a raw taker key has no wallet). */
export function requireWallet(ctx: ApiContext): RequestHandler {
  return async (req: Request, _res: Response, next: NextFunction) => {
    const p = await principalOf(ctx, req);
    if (!p || p.kind === 'taker_key') {
      throw new UnauthorizedError('an authenticated wallet is required: a SIWE bearer, a taker delegate or a maker API key', 'wallet_required');
    }
    next();
  };
}
