import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { ForbiddenError } from '../../shared/platform/errors';
import type { ApiContext } from '../context';

/** Header carrying the widget token, as the spec names it. */
export const CHALLENGE_HEADER = 'X-Challenge-Response';

/** The spec's error text when the challenge is enforced and the token is missing or invalid. */
export function challengeRequired(): ForbiddenError {
  return new ForbiddenError('challenge verification required', 'challenge_required');
}

/** True when the request passes the bot challenge for `action` (always, when no secret is configured). */
export async function passesChallenge(ctx: ApiContext, req: Request, action: string): Promise<boolean> {
  const outcome = await ctx.services.identity.challenge.verify(req.get(CHALLENGE_HEADER), action, req.ip);
  return outcome === 'passed' || outcome === 'not_enforced';
}

/** The bot challenge for `action`; fails open when the server has no challenge secret. */
export function requireChallenge(ctx: ApiContext, action: string): RequestHandler {
  return async (req: Request, _res: Response, next: NextFunction) => {
    if (!(await passesChallenge(ctx, req, action))) throw challengeRequired();
    next();
  };
}
