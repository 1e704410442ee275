import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { ApiContext } from '../context';
import { credentialBuckets } from './caller';
import { principalOf } from './principal';
import { consumeAll, createLimiter, ipBucket } from './rate-limit';
import { isOfferDryRun, isQuoteCreate } from './budgeted-writes';
import { step } from '../../shared/platform/tracing';

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Budgets of every write under /api, mounted once in front of all its routes so a new write
 * route is covered without remembering to. Quote creation has its own budget, and so has the
 * offer dry-run (it writes nothing, and a maker bot that checks each offer first must not halve
 * its offer budget); every other POST/PUT/PATCH/DELETE shares the write budget. The IP is charged first, before the bearer is
 * resolved, so a flood of forged credentials costs one Redis call each and no database lookup;
 * then each credential bucket the principal spends from. A refused request reaches no handler.
 */
export function writeLimits(ctx: ApiContext): RequestHandler {
  const c = ctx.config;
  const quote = {
    ip: createLimiter(ctx, 'quote-ip', c.QUOTE_RATE_LIMIT_PER_IP, c.QUOTE_RATE_WINDOW_SECONDS),
    credential: createLimiter(ctx, 'quote-credential', c.QUOTE_RATE_LIMIT_PER_CREDENTIAL, c.QUOTE_RATE_WINDOW_SECONDS),
  };
  const write = {
    ip: createLimiter(ctx, 'write-ip', c.WRITE_RATE_LIMIT_PER_IP, c.WRITE_RATE_WINDOW_SECONDS),
    credential: createLimiter(ctx, 'write-credential', c.WRITE_RATE_LIMIT_PER_CREDENTIAL, c.WRITE_RATE_WINDOW_SECONDS),
  };
  const dryRun = {
    ip: createLimiter(ctx, 'dry-run-ip', c.DRY_RUN_RATE_LIMIT_PER_IP, c.DRY_RUN_RATE_WINDOW_SECONDS),
    credential: createLimiter(ctx, 'dry-run-credential', c.DRY_RUN_RATE_LIMIT_PER_CREDENTIAL, c.DRY_RUN_RATE_WINDOW_SECONDS),
  };
  return async (req: Request, _res: Response, next: NextFunction) => {
    if (!WRITE_METHODS.has(req.method)) return next();
    const budget = isQuoteCreate(req) ? quote : isOfferDryRun(req) ? dryRun : write;
    await step('limit.ip', () => consumeAll(budget.ip, [ipBucket(req.ip)]));
    const p = await step('auth.bearer', () => principalOf(ctx, req));
    if (p) await step('limit.credential', () => consumeAll(budget.credential, credentialBuckets(p)));
    next();
  };
}
