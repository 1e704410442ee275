import type { Request } from 'express';

/**
 * The writes that have budgets of their own (api/auth/write-limits.ts), matched as Express
 * matches routes: case-insensitive, a trailing slash forgiven. The /api body parser asks the
 * same of a dry-run (api/http/dry-run-body-refusal.ts), so the match lives here, under both.
 */

/** `POST /api/quote` as the /api router sees it. */
export function isQuoteCreate(req: Request): boolean {
  return req.method === 'POST' && req.path.toLowerCase().replace(/\/+$/, '') === '/quote';
}

/** `POST /api/quote/:id/dry-run` as the /api router sees it. */
export function isOfferDryRun(req: Request): boolean {
  return req.method === 'POST' && /^\/quote\/[^/]+\/dry-run\/*$/i.test(req.path);
}
