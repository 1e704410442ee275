import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { ApiContext } from '../context';
import { credentialBuckets } from './caller';
import { principalOf } from './principal';
import { ipBucket } from './rate-limit';
import { isOfferDryRun, isQuoteCreate } from './budgeted-writes';
import { WriteBudgets } from './write-budgets';
import { step } from '../../shared/platform/tracing';

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Budgets of every write under /api, mounted once in front of all its routes so a new write
 * route is covered without remembering to. Quote creation has its own budget, and so has the
 * offer dry-run (it writes nothing, and a maker bot that checks each offer first must not halve
 * its offer budget); every other POST/PUT/PATCH/DELETE shares the write budget. A write is charged
 * in one Redis round trip (api/auth/write-budgets.ts): its client IP first, then each credential
 * bucket the principal spends from, stopping at the first budget that refuses. The bearer is
 * resolved before that one call, so a client IP this process has seen refused is refused from
 * memory before its bearer is looked at: a flood of forged credentials over the IP budget costs no
 * database lookup and no Redis call. A refused request reaches no handler.
 */
export function writeLimits(ctx: ApiContext): RequestHandler {
  const c = ctx.config;
  const family = (name: string, perIp: number, perCredential: number, windowSeconds: number) =>
    new WriteBudgets(ctx.redis, c.REDIS_PREFIX, name, { perIp, perCredential, windowSeconds });
  const quote = family('quote', c.QUOTE_RATE_LIMIT_PER_IP, c.QUOTE_RATE_LIMIT_PER_CREDENTIAL, c.QUOTE_RATE_WINDOW_SECONDS);
  const write = family('write', c.WRITE_RATE_LIMIT_PER_IP, c.WRITE_RATE_LIMIT_PER_CREDENTIAL, c.WRITE_RATE_WINDOW_SECONDS);
  const dryRun = family('dry-run', c.DRY_RUN_RATE_LIMIT_PER_IP, c.DRY_RUN_RATE_LIMIT_PER_CREDENTIAL, c.DRY_RUN_RATE_WINDOW_SECONDS);
  return async (req: Request, _res: Response, next: NextFunction) => {
    if (!WRITE_METHODS.has(req.method)) return next();
    const budgets = isQuoteCreate(req) ? quote : isOfferDryRun(req) ? dryRun : write;
    const ip = ipBucket(req.ip);
    const known = budgets.knownRefusal(ip);
    if (known) throw known;
    const p = await step('auth.bearer', () => principalOf(ctx, req));
    await step('limit.write', () => budgets.charge(ip, p ? credentialBuckets(p) : []));
    next();
  };
}
