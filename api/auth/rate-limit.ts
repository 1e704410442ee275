import { isIPv4, isIPv6 } from 'node:net';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { dependencyOutage, ServiceUnavailableError, TooManyRequestsError } from '../../shared/platform/errors';
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
      // Redis down is told like everywhere else (shared/platform/errors); anything else the store throws fails closed too.
      throw dependencyOutage(err) ?? new ServiceUnavailableError('rate limiter unavailable', 'rate_limiter_unavailable', 1);
    }
  }
}

const MAPPED_V4 = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i;
const TRAILING_V4 = /(\d{1,3}(?:\.\d{1,3}){3})$/;

/** The eight 16-bit groups of a valid IPv6 address (`::` expanded, a trailing dotted quad folded in). */
function ipv6Groups(addr: string): number[] {
  let text = addr;
  const v4 = TRAILING_V4.exec(text);
  if (v4) {
    const [a, b, c, d] = v4[1].split('.').map(Number);
    text = `${text.slice(0, -v4[1].length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const parse = (s: string) => (s === '' ? [] : s.split(':').map((g) => parseInt(g, 16)));
  const [head, tail] = text.split('::');
  if (tail === undefined) return parse(head);
  const [h, t] = [parse(head), parse(tail)];
  return [...h, ...new Array<number>(8 - h.length - t.length).fill(0), ...t];
}

/**
 * The bucket a client address spends from. An IPv4 address (also when it arrives IPv4-mapped)
 * is its own bucket; an IPv6 client is bucketed by its /64, because one subscriber is routinely
 * handed a whole /64 and could otherwise take a fresh address, and a fresh budget, per request.
 */
export function ipBucket(ip: string | undefined): string {
  if (!ip) return 'ip:unknown';
  const addr = ip.replace(/%.*$/, '');
  const mapped = MAPPED_V4.exec(addr);
  if (mapped) return `ip:${mapped[1]}`;
  if (isIPv4(addr)) return `ip:${addr}`;
  if (isIPv6(addr)) return `ip6:${ipv6Groups(addr).slice(0, 4).map((g) => g.toString(16)).join(':')}::/64`;
  return `ip:${addr}`;
}

/** Limits a route per client IP (as Express sees it, after TRUST_PROXY_HOPS; IPv6 per /64). */
export function limitPerIp(ctx: ApiContext, name: string, points: number, windowSeconds: number): RequestHandler {
  const limiter = createLimiter(ctx, name, points, windowSeconds);
  return async (req: Request, _res: Response, next: NextFunction) => {
    await consumeAll(limiter, [ipBucket(req.ip)]);
    next();
  };
}
