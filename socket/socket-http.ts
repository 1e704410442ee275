import express, { type Express } from 'express';
import type { ServiceDeps } from '../shared/platform/runtime';
import { errorHandler, notFound } from '../shared/platform/http/error-handler';
import { requestContext } from '../shared/platform/http/request-context';
import { healthRoutes } from '../shared/platform/http/health-probes';

/**
 * The HTTP side of a socket-only process (ROLES=socket): the same /healthz, /readyz and
 * /metrics as the API, so one probe and scrape configuration fits every replica, and a 404
 * for everything else. The WebSocket upgrade is handled beside it, on the same server.
 */
export function socketOnlyApp(deps: ServiceDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.use(requestContext(deps.logger));
  app.use(healthRoutes(deps));
  app.use(notFound);
  app.use(errorHandler);
  return app;
}
