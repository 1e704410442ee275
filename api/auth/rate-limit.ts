import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { ServiceUnavailableError, TooManyRequestsError } from '../../shared/errors';
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

/** Takes one point for each key; the first key over its budget answers 429 with Retry-After. */
export async function consumeAll(limiter: RateLimiterRedis, keys: string[]): Promise<void> {
  for (const key of keys) {
    try {
      await limiter.consume(key);
    } catch (err) {
      if (err instanceof RateLimiterRes) throw new TooManyRequestsError(err.msBeforeNext / 1000);
      throw new ServiceUnavailableError('rate limiter unavailable', 'rate_limiter_unavailable', 1);
    }
  }
}

/** Limits a route per client IP (as Express sees it, after TRUST_PROXY_HOPS). */
export function limitPerIp(ctx: ApiContext, name: string, points: number, windowSeconds: number): RequestHandler {
  const limiter = createLimiter(ctx, name, points, windowSeconds);
  return async (req: Request, _res: Response, next: NextFunction) => {
    await consumeAll(limiter, [`ip:${req.ip ?? 'unknown'}`]);
    next();
  };
}
