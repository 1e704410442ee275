import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { ForbiddenError, UnauthorizedError } from '../../shared/platform/errors';
import type { ApiContext } from '../context';
import { challengeRequired, passesChallenge } from './challenge-auth';
import { principalOf } from './principal';
import { credentialBuckets } from './caller';
import { consumeAll, createLimiter, ipBucket } from './rate-limit';
import { streamCaps } from './stream-caps';

/** The stream mints (by route id) and their feeds: past the gate they count against the live-stream caps (stream-caps.ts). */
const STREAM_MINTS: Record<string, 'clob' | 'loan'> = { postExploreClobStream: 'clob', mintLoanStream: 'loan' };

/** The spec's widget actions: `/api/explore/clobs/*` and `/api/clob/*` vs `/api/explore/loans/*` and `/api/margin/loans*`. */
export type ExploreAction = 'explore-clob' | 'explore-loan';

/**
 * The Explore gate, in the spec's processing order with the client IP's budget first:
 *   0. the per-IP rate limit (EXPLORE_RATE_LIMIT_PER_IP), before the bearer is looked up, so a
 *      flood of forged bearers from one address costs one Redis call each and ends in 429s;
 *   1. a SIWE bearer, or a delegate minted with a taker API key (`key_id`);
 *   2. geoblock: the edge's country header against GEOBLOCK_COUNTRIES;
 *   3. the per-credential rate limit (EXPLORE_RATE_LIMIT): a SIWE session spends its wallet's
 *      bucket; a delegate its own (taker organization + wallet) and its taker key's;
 *   4. access: a keyed delegate passes; a SIWE bearer needs an allowlisted Origin and the
 *      bot challenge for the route's action (which passes when no secret is configured);
 *   5. on the two stream mints, the caps on live stream tokens (stream-caps.ts).
 * Error texts are the spec's, verbatim; a 429 names the budget that ran out in `limit`. Each
 * route mounts its own gate with its action and its own buckets (its route id): `<bucket>:explore`
 * counts that route alone, so a client paging fills does not spend the budget of the book it
 * also watches.
 */
export function exploreGate(ctx: ApiContext, action: ExploreAction, bucket = 'all'): RequestHandler {
  const caps = STREAM_MINTS[bucket] ? streamCaps(ctx, STREAM_MINTS[bucket]) : null;
  const { config } = ctx;
  const window = config.EXPLORE_RATE_WINDOW_SECONDS;
  const perIp = createLimiter(ctx, `${bucket}:explore-ip`, config.EXPLORE_RATE_LIMIT_PER_IP, window);
  const perCredential = createLimiter(ctx, `${bucket}:explore`, config.EXPLORE_RATE_LIMIT, window);
  const blocked = new Set(config.GEOBLOCK_COUNTRIES);

  return async (req: Request, res: Response, next: NextFunction) => {
    await consumeAll(perIp, [ipBucket(req.ip)], 'EXPLORE_RATE_LIMIT_PER_IP');
    const p = await principalOf(ctx, req);
    if (p?.kind === 'delegate' && p.keyId === null) throw new UnauthorizedError('taker API key delegate required', 'delegate_key_required');
    if (p?.kind !== 'siwe' && p?.kind !== 'delegate') throw new UnauthorizedError('siwe or taker delegate required', 'explore_auth_required');

    const country = req.get(config.GEOBLOCK_HEADER)?.trim().toUpperCase();
    if (country && blocked.has(country)) throw new ForbiddenError('explore is not available in your region', 'geoblocked');

    // A delegate spends from its own bucket (taker organization + wallet) and its key's, never from
    // the wallet's: any taker organization can mint delegates naming any wallet, and must not be
    // able to spend that wallet's own budget, nor another organization's delegate budget.
    await consumeAll(perCredential, credentialBuckets(p), 'EXPLORE_RATE_LIMIT');

    const pass = caps ? () => caps(req, res, next) : () => next();
    if (p.kind === 'delegate') return pass();
    const origin = req.get('origin');
    if (!origin) throw new ForbiddenError('origin header required', 'origin_required');
    if (!config.CORS_ORIGINS.includes(origin)) throw new ForbiddenError('origin not allowed', 'origin_not_allowed');
    if (!(await passesChallenge(ctx, req, action))) throw challengeRequired();
    return pass();
  };
}
