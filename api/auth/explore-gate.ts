import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { ForbiddenError, UnauthorizedError } from '../../shared/platform/errors';
import type { ApiContext } from '../context';
import { challengeRequired, passesChallenge } from './challenge-auth';
import { principalOf } from './principal';
import { credentialBuckets } from './caller';
import { consumeAll, createLimiter, ipBucket } from './rate-limit';

/** The spec's widget actions: `/api/explore/clobs/*` and `/api/clob/*` vs `/api/explore/loans/*` and `/api/margin/loans*`. */
export type ExploreAction = 'explore-clob' | 'explore-loan';

/**
 * The Explore gate, in the spec's processing order:
 *   1. a SIWE bearer, or a delegate minted with a taker API key (`key_id`);
 *   2. geoblock: the edge's country header against GEOBLOCK_COUNTRIES;
 *   3. the `:explore` rate limit, per IP, per wallet and per taker key;
 *   4. access: a keyed delegate passes; a SIWE bearer needs an allowlisted Origin and the
 *      bot challenge for the route's action (which passes when no secret is configured).
 * Error texts are the spec's, verbatim. Each route mounts its own gate with its action and its
 * own bucket (its route id): `<bucket>:explore` counts that route alone, so a client paging
 * fills does not spend the budget of the book it also watches.
 */
export function exploreGate(ctx: ApiContext, action: ExploreAction, bucket = 'all'): RequestHandler {
  const { config } = ctx;
  const limiter = createLimiter(ctx, `${bucket}:explore`, config.EXPLORE_RATE_LIMIT, config.EXPLORE_RATE_WINDOW_SECONDS);
  const blocked = new Set(config.GEOBLOCK_COUNTRIES);

  return async (req: Request, _res: Response, next: NextFunction) => {
    const p = await principalOf(ctx, req);
    if (p?.kind === 'delegate' && p.keyId === null) throw new UnauthorizedError('taker API key delegate required', 'delegate_key_required');
    if (p?.kind !== 'siwe' && p?.kind !== 'delegate') throw new UnauthorizedError('siwe or taker delegate required', 'explore_auth_required');

    const country = req.get(config.GEOBLOCK_HEADER)?.trim().toUpperCase();
    if (country && blocked.has(country)) throw new ForbiddenError('explore is not available in your region', 'geoblocked');

    // A delegate spends from its own bucket (taker organization + wallet) and its key's, never from
    // the wallet's: any taker organization can mint delegates naming any wallet, and must not be
    // able to spend that wallet's own budget.
    await consumeAll(limiter, [ipBucket(req.ip), ...credentialBuckets(p)]);

    if (p.kind === 'delegate') return next();
    const origin = req.get('origin');
    if (!origin) throw new ForbiddenError('origin header required', 'origin_required');
    if (!config.CORS_ORIGINS.includes(origin)) throw new ForbiddenError('origin not allowed', 'origin_not_allowed');
    if (!(await passesChallenge(ctx, req, action))) throw challengeRequired();
    next();
  };
}
