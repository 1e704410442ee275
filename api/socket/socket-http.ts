import express, { type Express } from 'express';
import { buildContext, type ApiDeps } from '../context';
import { errorHandler, notFound } from '../http/error-handler';
import { requestContext } from '../http/request-context';
import { healthRoutes } from '../routes/health.routes';

/**
 * The HTTP side of a socket-only process (ROLES=socket): the same /healthz, /readyz and
 * /metrics as the API, so one probe and scrape configuration fits every replica, and a 404
 * for everything else. The WebSocket upgrade is handled beside it, on the same server.
 */
export function socketOnlyApp(deps: ApiDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.use(requestContext(deps.logger));
  app.use(healthRoutes(buildContext(deps)));
  app.use(notFound);
  app.use(errorHandler);
  return app;
}
