import cors from 'cors';
import express, { type Express } from 'express';
import { buildContext, type ApiContext, type ApiDeps } from './context';
import { writeLimits } from './auth';
import { errorHandler, notFound } from '../shared/platform/http/error-handler';
import { requestContext } from '../shared/platform/http/request-context';
import { healthRoutes } from '../shared/platform/http/health.routes';
import { publicRoutes } from './routes/public.routes';
import { pubsubRoutes } from './routes/pubsub.routes';
import { identityRoutes } from './routes/identity.routes';
import { makerKeysRoutes } from './routes/maker-keys.routes';
import { takerRoutes } from './routes/taker.routes';
import { quoteRoutes } from './routes/quote.routes';
import { indexerRoutes } from './routes/indexer.routes';
import { portfolioRoutes } from './routes/portfolio.routes';

/**
 * Builds the Express app from its dependencies. Stateless: every request can land on any
 * replica. Tests build it with supertest against their own database and Redis prefix.
 */
export function createApp(deps: ApiDeps): { app: Express; ctx: ApiContext } {
  const ctx = buildContext(deps);
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', deps.config.TRUST_PROXY_HOPS);
  app.set('etag', 'weak');

  app.use(requestContext(deps.logger));
  app.use(
    cors({
      origin: (origin, cb) => cb(null, origin !== undefined && deps.config.CORS_ORIGINS.includes(origin)),
      allowedHeaders: ['Authorization', 'Content-Type', 'Idempotency-Key', 'X-Challenge-Response', 'X-Quote-Stream-Token', 'X-Request-Id'],
      exposedHeaders: ['X-Request-Id', 'Retry-After'],
      maxAge: 600,
    }),
  );
  app.use(healthRoutes(ctx));

  const api = express.Router();
  // Before the body parser: a refused write costs no parsing.
  api.use(writeLimits(ctx));
  api.use(express.json({ limit: deps.config.BODY_LIMIT_BYTES, strict: true }));
  api.use(publicRoutes(ctx));
  api.use(identityRoutes(ctx), makerKeysRoutes(ctx), takerRoutes(ctx));
  api.use(quoteRoutes(ctx));
  api.use(pubsubRoutes(ctx));
  api.use(indexerRoutes(ctx), portfolioRoutes(ctx));
  api.use(notFound);
  app.use('/api', api);

  app.use(notFound);
  app.use(errorHandler);
  return { app, ctx };
}
