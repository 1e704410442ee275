import { createHash, timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { AppError, dependencyOutage, ServiceUnavailableError, TooManyRequestsError } from '../../shared/platform/errors';
import type { ApiContext } from '../context';
import { consumeAll, createLimiter, ipBucket } from './rate-limit';

/** What a browser needs to show its login prompt; any user name is accepted. */
export const OPERATOR_CHALLENGE = 'Basic realm="ops"';

/** The config key whose budget a refused client has spent, named in the 429 body. */
const FAILURE_LIMIT = 'OPS_DASHBOARD_FAILURES_PER_IP';

/** One answer for a missing and a wrong credential: a caller learns nothing about how close it came. */
const refused = () => new AppError(401, 'operator_unauthorized', 'operator credential required', undefined, { 'WWW-Authenticate': OPERATOR_CHALLENGE });

/**
 * The secret an Authorization header carries: the password of `Basic` (what a browser sends
 * after its prompt), or the token of `Bearer`. Undefined without the header; an unreadable
 * header or another scheme is a credential that matches nothing, so it counts as a failure.
 */
function presentedSecret(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const m = /^(basic|bearer) +(\S+) *$/i.exec(header);
  if (!m) return '';
  if (m[1].toLowerCase() === 'bearer') return m[2];
  const decoded = Buffer.from(m[2], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? '' : decoded.slice(colon + 1);
}

const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();

/**
 * Lets through requests that carry the operator token. The two are compared as SHA-256 digests
 * with timingSafeEqual, so neither the time taken nor the length reveals how much of a guess was
 * right. The right token is always served: wrong guesses from the operator's own address (a NAT,
 * a stray script) cannot lock the operator out. Each wrong credential spends a point of two
 * failure budgets (in Redis, shared by every replica): the client IP's and the wrong token's
 * fingerprint's (a sha-256 prefix, across every IP), and a wrong credential from an IP or with a
 * fingerprint that has spent its budget is answered 429. The token is at least 32 printable
 * characters, so the budgets bound noise, not the odds of a guess. A request without a
 * credential spends nothing: it is how a browser asks for the prompt.
 */
export function requireOperator(ctx: ApiContext, token: string): RequestHandler {
  const expected = digest(token);
  const points = ctx.config.OPS_DASHBOARD_FAILURES_PER_IP;
  const failures = createLimiter(ctx, 'ops-auth-failures', points, ctx.config.OPS_DASHBOARD_FAILURE_WINDOW_SECONDS);
  const spentOf = async (key: string) => {
    const spent = await failures.get(key).catch((err: unknown) => {
      throw dependencyOutage(err) ?? new ServiceUnavailableError('rate limiter unavailable', 'rate_limiter_unavailable', 1);
    });
    if (spent && spent.consumedPoints > points) throw new TooManyRequestsError(spent.msBeforeNext / 1000, undefined, FAILURE_LIMIT);
  };
  return async (req: Request, _res: Response, next: NextFunction) => {
    const ip = ipBucket(req.ip);
    const secret = presentedSecret(req.headers.authorization);
    if (secret === undefined) {
      await spentOf(ip);
      throw refused();
    }
    const presented = digest(secret);
    if (timingSafeEqual(presented, expected)) return next();
    const fingerprint = `fp:${presented.subarray(0, 16).toString('hex')}`;
    await spentOf(ip);
    await spentOf(fingerprint);
    await consumeAll(failures, [ip, fingerprint], FAILURE_LIMIT);
    throw refused();
  };
}
