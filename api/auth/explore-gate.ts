import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { looksLikeKeySecret, type Principal } from '../../shared/identity';
import { ForbiddenError, UnauthorizedError, type AppError } from '../../shared/platform/errors';
import type { ApiContext } from '../context';
import { challengeRequired, passesChallenge } from './challenge-auth';
import { bearerOf, principalOf } from './principal';
import { credentialBuckets } from './caller';
import { ipBucket } from './rate-limit';
import { streamCaps } from './stream-caps';
import { WriteBudgets } from './write-budgets';

/** The stream mints (by route id) and their feeds: past the gate they count against the live-stream caps (stream-caps.ts). */
const STREAM_MINTS: Record<string, 'clob' | 'loan'> = { postExploreClobStream: 'clob', mintLoanStream: 'loan' };

/** The spec's widget actions: `/api/explore/clobs/*` and `/api/clob/*` vs `/api/explore/loans/*` and `/api/margin/loans*`. */
export type ExploreAction = 'explore-clob' | 'explore-loan';

/** Who may use Explore: a SIWE session, or a delegate (minted with a taker API key, step 1 checks). */
type ExplorePrincipal = Extract<Principal, { kind: 'siwe' | 'delegate' }>;

/**
 * The Explore gate, in the spec's processing order with the client IP's budget first:
 *   0. the per-IP rate limit (EXPLORE_RATE_LIMIT_PER_IP): a request over it is refused 429
 *      whatever its bearer, before the 401 or 403 of steps 1-2;
 *   1. a SIWE bearer, or a delegate minted with a taker API key (`key_id`);
 *   2. geoblock: the edge's country header against GEOBLOCK_COUNTRIES;
 *   3. the per-credential rate limit (EXPLORE_RATE_LIMIT): a SIWE session spends its wallet's
 *      bucket; a delegate its own (taker organization + wallet) and its taker key's;
 *   4. access: a keyed delegate passes; a SIWE bearer needs an allowlisted Origin and the
 *      bot challenge for the route's action (which passes when no secret is configured);
 *   5. on the two stream mints, the caps on live stream tokens (stream-caps.ts).
 * Error texts are the spec's, verbatim; a 429 names the budget that ran out in `limit`. Each
 * route mounts its own gate with its action and its own budgets (its route id): the family
 * `<bucket>:explore` counts that route alone, so a client paging fills does not spend the budget
 * of the book it also watches.
 *
 * Steps 0 and 3 are one Redis round trip (api/auth/write-budgets.ts, as the writes are charged):
 * the bearer is resolved first, then the one script charges the IP and, for a request steps 1-2
 * admit, its credential buckets, stopping at the first budget that refuses. A request steps 1-2
 * refuse spends its IP's budget alone, as when the IP was charged before the bearer was read. What
 * charging the IP first bought, that a flood of forged bearers from one address costs no database
 * lookup, holds as follows: a key secret is not looked up at all (`explorePrincipal`), a JWT is
 * checked by its signature, and an address this process has seen refused is refused from memory
 * until its window ends, before its bearer is read and without a Redis call.
 */
export function exploreGate(ctx: ApiContext, action: ExploreAction, bucket = 'all'): RequestHandler {
  const caps = STREAM_MINTS[bucket] ? streamCaps(ctx, STREAM_MINTS[bucket]) : null;
  const { config } = ctx;
  const budgets = new WriteBudgets(ctx.redis, config.REDIS_PREFIX, `${bucket}:explore`, {
    perIp: config.EXPLORE_RATE_LIMIT_PER_IP,
    perCredential: config.EXPLORE_RATE_LIMIT,
    windowSeconds: config.EXPLORE_RATE_WINDOW_SECONDS,
    names: { perIp: 'EXPLORE_RATE_LIMIT_PER_IP', perCredential: 'EXPLORE_RATE_LIMIT' },
  });
  const blocked = new Set(config.GEOBLOCK_COUNTRIES);

  return async (req: Request, res: Response, next: NextFunction) => {
    const ip = ipBucket(req.ip);
    const known = budgets.knownRefusal(ip);
    if (known) throw known;
    const admitted = admit(await explorePrincipal(ctx, req), req.get(config.GEOBLOCK_HEADER), blocked);
    // One call: a caller steps 1-2 refuse spends its IP's budget alone (past it, the 429 answers
    // before the 401 or 403); one they admit its IP's, then its credential buckets. A delegate
    // spends from its own bucket (taker organization + wallet) and its key's, never from the
    // wallet's: any taker organization can mint delegates naming any wallet, and must not be able
    // to spend that wallet's own budget, nor another organization's delegate budget.
    const refused = admitted instanceof Error;
    await budgets.charge(ip, refused ? [] : credentialBuckets(admitted));
    if (refused) throw admitted;

    const pass = caps ? () => caps(req, res, next) : () => next();
    if (admitted.kind === 'delegate') return pass();
    const origin = req.get('origin');
    if (!origin) throw new ForbiddenError('origin header required', 'origin_required');
    if (!config.CORS_ORIGINS.includes(origin)) throw new ForbiddenError('origin not allowed', 'origin_not_allowed');
    if (!(await passesChallenge(ctx, req, action))) throw challengeRequired();
    return pass();
  };
}

/**
 * The bearer as the gate needs it. A key secret (a maker key, a raw taker key) is never an Explore
 * credential, valid or not, so it is not looked up: forged ones cost no database read, within the
 * IP's budget or past it. Anything else is resolved as every route resolves it (a JWT by its
 * signature; a delegate whose signature holds against its taker key, through the gate's memory).
 */
async function explorePrincipal(ctx: ApiContext, req: Request): Promise<Principal | null> {
  const raw = bearerOf(req);
  if (raw !== null && looksLikeKeySecret(raw)) return null;
  return principalOf(ctx, req);
}

/** Steps 1 and 2: the caller steps 3-5 go on with, or the 401 or 403 that refuses it. */
function admit(p: Principal | null, country: string | undefined, blocked: ReadonlySet<string>): ExplorePrincipal | AppError {
  if (p?.kind === 'delegate' && p.keyId === null) return new UnauthorizedError('taker API key delegate required', 'delegate_key_required');
  if (p?.kind !== 'siwe' && p?.kind !== 'delegate') return new UnauthorizedError('siwe or taker delegate required', 'explore_auth_required');
  const from = country?.trim().toUpperCase();
  if (from && blocked.has(from)) return new ForbiddenError('explore is not available in your region', 'geoblocked');
  return p;
}
