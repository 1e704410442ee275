import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { dependencyOutage, ServiceUnavailableError, TooManyRequestsError } from '../../shared/platform/errors';
import { addressBucket } from '../../shared/platform/http/client-address';
import type { ApiContext } from '../context';

/** A Redis-backed fixed-window limiter under the deployment's key prefix, shared by every replica. */
export function createLimiter(ctx: ApiContext, name: string, points: number, windowSeconds: number): RateLimiterRedis {
  return new RateLimiterRedis({
    storeClient: ctx.redis,
    keyPrefix: `${ctx.config.REDIS_PREFIX}rl:${name}`,
    points,
    duration: windowSeconds,
  });
}

/**
 * Takes one point for each key; the first key over its budget answers 429 with Retry-After.
 * `limit`, when given, is the config key of the budget: the 429 names it in the body's `limit`.
 */
export async function consumeAll(limiter: RateLimiterRedis, keys: string[], limit?: string): Promise<void> {
  for (const key of keys) {
    try {
      await limiter.consume(key);
    } catch (err) {
      if (err instanceof RateLimiterRes) throw new TooManyRequestsError(err.msBeforeNext / 1000, undefined, limit);
      // Redis down is told like everywhere else (shared/platform/errors); anything else the store throws fails closed too.
      throw dependencyOutage(err) ?? new ServiceUnavailableError('rate limiter unavailable', 'rate_limiter_unavailable', 1);
    }
  }
}

/**
 * The rate-limit key of a client address: the same bucket the socket tier counts connections
 * under (an IPv4 address, IPv4-mapped included, or an IPv6 /64), with the family in the key.
 */
export function ipBucket(ip: string | undefined): string {
  if (!ip) return 'ip:unknown';
  const bucket = addressBucket(ip);
  return bucket.endsWith('::/64') ? `ip6:${bucket}` : `ip:${bucket}`;
}

/** Limits a route per client IP (as Express sees it, after TRUST_PROXY_HOPS; IPv6 per /64). */
export function limitPerIp(ctx: ApiContext, name: string, points: number, windowSeconds: number): RequestHandler {
  const limiter = createLimiter(ctx, name, points, windowSeconds);
  return async (req: Request, _res: Response, next: NextFunction) => {
    await consumeAll(limiter, [ipBucket(req.ip)]);
    next();
  };
}
