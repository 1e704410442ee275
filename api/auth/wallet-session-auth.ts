import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { ForbiddenError, UnauthorizedError } from '../../shared/platform/errors';
import type { Principal } from '../../shared/identity';
import type { ApiContext } from '../context';
import { principalOf } from './principal';

/** 403 for an unverified maker key where its wallet's consent is needed, naming the way out. */
export function unverifiedKey(keyId: string): ForbiddenError {
  return new ForbiddenError(
    `maker key ${keyId} is unverified: its bot wallet has not proved it consents. Verify it (POST /api/maker/keys/${keyId}/verify with the bot wallet's signature, or sign in with the bot wallet) before it bids, takes exclusive fills, joins rfq_maker or acts for the wallet`,
    'maker_key_unverified',
  );
}

export const WALLET_SESSION_WHAT = "the wallet's own credential is required: its SIWE session, or a maker API key of that bot wallet";

/**
 * The credentials that prove the wallet itself consented: its SIWE session (the wallet signed
 * the sign-in message) or a maker API key of that bot wallet (the bot wallet signed the key's
 * binding, `address_signature`). A taker delegate is refused: a taker organization names any
 * wallet it likes when it mints one, so a delegate proves nothing about the wallet.
 */
export function isWalletsOwnCredential(p: Principal | null | undefined): boolean {
  // An unverified maker key was bound without the wallet's signature: it proves nothing about the wallet.
  return p?.kind === 'siwe' || (p?.kind === 'maker_key' && p.verified);
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
    if (p?.kind === 'maker_key') throw unverifiedKey(p.keyId);
    if (p?.kind === 'delegate')
      throw new ForbiddenError(`${WALLET_SESSION_WHAT}; a taker delegate does not speak for the wallet here`, 'wallet_session_required');
    throw new UnauthorizedError(WALLET_SESSION_WHAT, 'wallet_session_required');
  };
}
