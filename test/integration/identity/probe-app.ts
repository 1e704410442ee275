import express, { type Express, type RequestHandler } from 'express';
import type { ApiContext } from '../../../api/context';
import { errorHandler } from '../../../shared/platform/http/error-handler';
import { requestContext } from '../../../shared/platform/http/request-context';

/**
 * A tiny app that mounts auth middleware in front of a handler echoing the principal, the way
 * later feature routes will mount it. Uses the same error handler as the real app.
 */
export function probeApp(ctx: ApiContext, routes: Record<string, RequestHandler[]>, opts: { trustProxy?: number } = {}): Express {
  const app = express();
  app.set('trust proxy', opts.trustProxy ?? 0);
  app.use(requestContext(ctx.logger));
  for (const [path, chain] of Object.entries(routes)) {
    app.get(path, ...chain, (req, res) => {
      res.json({ principal: req.principal ?? null });
    });
  }
  app.use(errorHandler);
  return app;
}
