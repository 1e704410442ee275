import type { NextFunction, Request, Response } from 'express';

/** Public, shared-cacheable responses (network data). */
export function publicCache(maxAgeSeconds: number) {
  const value = maxAgeSeconds > 0 ? `public, max-age=${maxAgeSeconds}, stale-while-revalidate=${maxAgeSeconds}` : 'no-cache';
  return (_req: Request, res: Response, next: NextFunction) => {
    res.setHeader('Cache-Control', value);
    next();
  };
}

/** Per-user or secret-bearing responses. */
export function noStore(_req: Request, res: Response, next: NextFunction) {
  res.setHeader('Cache-Control', 'no-store');
  next();
}
