import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { ApiContext } from '../context';
import { challengeRequired, passesChallenge } from './challenge-auth';
import { principalOf, takerKeyNotBearer } from './principal';

/** Widget action for quote creation; the spec names actions only for explore routes. */
export const QUOTE_CHALLENGE_ACTION = 'quote-create';

/**
 * Quote creation: a taker-delegate JWT (minted with a key or by the admin) skips the bot
 * challenge; anyone else must pass it when it is enforced.
 */
export function requireChallengeOrDelegate(ctx: ApiContext, action = QUOTE_CHALLENGE_ACTION): RequestHandler {
  return async (req: Request, _res: Response, next: NextFunction) => {
    const p = await principalOf(ctx, req);
    if (p?.kind === 'delegate') return next();
    if (p?.kind === 'taker_key') throw takerKeyNotBearer();
    if (!(await passesChallenge(ctx, req, action))) throw challengeRequired();
    next();
  };
}
