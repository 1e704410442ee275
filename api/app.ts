import cors from 'cors';
import express, { type Express } from 'express';
import { buildContext, type ApiContext, type ApiDeps } from './context';
import { writeLimits } from './auth';
import { errorHandler, notFound } from '../shared/platform/http/error-handler';
import { requestContext } from '../shared/platform/http/request-context';
import { requestSpan } from '../shared/platform/http/request-span';
import { roleTracer } from '../shared/platform/tracing';
import { noStore } from '../shared/platform/http/cache';
import { mountRoutes, recordRouteSpecs, routeChain, type BoundRoute } from './http/mount-routes';
import { hotLane } from './http/hot-lane';
import { keepingDryRunBodyRefusal } from './http/dry-run-body-refusal';
import { API_ROUTES, boundRoutes } from './routes/route-table';
import { QUEUE_DASHBOARD_PATH, queueDashboard } from './ops/queue-dashboard';
import { exportQueueDepths } from '../shared/platform/queue';

/**
 * The creates the service is sized by (docs/PERFORMANCE.md): answered by the hot lane
 * (api/http/hot-lane.ts) when the request spells their path exactly, and mounted first under /api
 * for every other spelling, so the router does not test them against the two dozen routes listed
 * before them. Their paths are literal and no other route's pattern matches them, so neither
 * changes an answer.
 */
const HOT_ROUTES = new Set(['createQuote', 'createOrder']);

function hotRoutesFirst(routes: BoundRoute[]): BoundRoute[] {
  for (const id of HOT_ROUTES) if (!routes.some((r) => r.spec.id === id)) throw new Error(`hot route ${id} is not an /api route`);
  return [...routes.filter((r) => HOT_ROUTES.has(r.spec.id)), ...routes.filter((r) => !HOT_ROUTES.has(r.spec.id))];
}

/**
 * Builds the Express app from its dependencies. Stateless: every request can land on any
 * replica. Tests build it with supertest against their own database and Redis prefix. Every
 * route is mounted from its spec (api/routes/route-table.ts).
 */
export function createApp(deps: ApiDeps): { app: Express; ctx: ApiContext } {
  const ctx = buildContext(deps);
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', deps.config.TRUST_PROXY_HOPS);
  app.set('etag', 'weak');

  const routes = boundRoutes(ctx);
  // Before the body parser: a refused write costs no parsing. One instance of each, shared with the
  // hot lane: a client IP refused on one path is remembered on the other.
  const limits = writeLimits(ctx);
  const body = keepingDryRunBodyRefusal(express.json({ limit: deps.config.BODY_LIMIT_BYTES, strict: true }));
  const apiRoutes = hotRoutesFirst(routes.filter((r) => r.spec.path.startsWith('/api/')));

  // What every request runs first, in this order: its span (when traced), its id, logger and access
  // line, CORS, and nothing stored by caches unless its route says it is public (network data).
  const tracer = roleTracer(deps.tracing, 'api');
  const front = [
    ...(tracer ? [requestSpan(tracer)] : []),
    requestContext(deps.logger),
    cors({
      origin: (origin, cb) => cb(null, origin !== undefined && deps.config.CORS_ORIGINS.includes(origin)),
      allowedHeaders: ['Authorization', 'Content-Type', 'Idempotency-Key', 'X-Challenge-Response', 'X-Quote-Stream-Token', 'X-Request-Id'],
      exposedHeaders: ['X-Request-Id', 'Retry-After'],
      maxAge: 600,
    }),
    noStore,
  ];
  // The creates' lane first, running `front` itself; every other request goes through `front` as app layers.
  app.use(
    hotLane(
      '/api',
      apiRoutes
        .filter((r) => HOT_ROUTES.has(r.spec.id))
        .map((r) => ({ method: r.spec.method, path: r.spec.path, chain: [limits, body, ...routeChain(ctx, r)] })),
      front,
    ),
  );
  for (const handler of front) app.use(handler);
  const token = deps.config.OPS_DASHBOARD_TOKEN;
  if (token !== undefined && deps.queueNames === undefined) throw new Error('OPS_DASHBOARD_TOKEN is set, but the app was given no queue names to show');
  if (deps.queueNames !== undefined) exportQueueDepths(deps, deps.queueNames, deps.config.PROBE_TIMEOUT_MS);
  // Not mounted at all without a token: the path then answers 404 like any unknown one.
  if (token !== undefined && deps.queueNames !== undefined) app.use(QUEUE_DASHBOARD_PATH, queueDashboard(ctx, token, deps.queueNames));
  const api = express.Router();
  api.use(limits);
  api.use(body);
  mountRoutes(api, '/api', apiRoutes, ctx);
  api.use(notFound);
  // The /api router before the probes: an API request is not tested against the probes' paths.
  app.use('/api', api);

  const probes = express.Router();
  mountRoutes(
    probes,
    '',
    routes.filter((r) => !r.spec.path.startsWith('/api/')),
    ctx,
  );
  app.use(probes);

  app.use(notFound);
  app.use(errorHandler);
  recordRouteSpecs(app, API_ROUTES);
  return { app, ctx };
}
