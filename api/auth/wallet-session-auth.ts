import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { ForbiddenError, UnauthorizedError } from '../../shared/platform/errors';
import type { Principal } from '../../shared/identity';
import type { ApiContext } from '../context';
import { principalOf } from './principal';

export const WALLET_SESSION_WHAT = "the wallet's own credential is required: its SIWE session, or a maker API key of that bot wallet";

/**
 * The credentials that prove the wallet itself consented: its SIWE session (the wallet signed
 * the sign-in message) or a maker API key of that bot wallet (the bot wallet signed the key's
 * binding, `address_signature`). A taker delegate is refused: a taker organization names any
 * wallet it likes when it mints one, so a delegate proves nothing about the wallet.
 */
export function isWalletsOwnCredential(p: Principal | null | undefined): p is Extract<Principal, { kind: 'siwe' | 'maker_key' }> {
  return p?.kind === 'siwe' || p?.kind === 'maker_key';
}

/**
 * Routes that change a wallet's own state (cancel its order): 401 without a wallet credential,
 * 403 for a delegate (authenticated, but not the wallet's consent). The handler then checks
 * that the wallet is the one whose state changes.
 */
export function requireWalletSession(ctx: ApiContext): RequestHandler {
  return async (req: Request, _res: Response, next: NextFunction) => {
    const p = await principalOf(ctx, req);
    if (isWalletsOwnCredential(p)) return next();
    if (p?.kind === 'delegate')
      throw new ForbiddenError(`${WALLET_SESSION_WHAT}; a taker delegate does not speak for the wallet here`, 'wallet_session_required');
    throw new UnauthorizedError(WALLET_SESSION_WHAT, 'wallet_session_required');
  };
}
