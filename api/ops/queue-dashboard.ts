import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import { Router } from 'express';
import { requireOperator } from '../auth/operator-auth';
import type { ApiContext } from '../context';

/** Where the api role serves the queue dashboard: outside /api, since it is no part of the public API. */
export const QUEUE_DASHBOARD_PATH = '/ops/queues';

/**
 * The page loads only its own scripts and talks only to its own JSON API. bull-board's page also
 * links a web font from Google: refused here, so an operator's browser tells nobody else it looked
 * (the page falls back to local fonts). Its markup carries inline styles.
 */
export const QUEUE_DASHBOARD_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; base-uri 'self'; form-action 'none'; frame-ancestors 'none'";

/**
 * bull-board over every queue of the job catalog, behind the operator token. The queues are the
 * JobQueue's own (the same hash-tagged prefixes, so a Redis Cluster works as it does for the
 * workers), and each is read-only: bull-board then refuses every write (retry, clean, pause,
 * add, remove) with 405, so an operator who looks cannot also lose jobs by a click.
 */
export function queueDashboard(ctx: ApiContext, token: string, queueNames: readonly string[]): Router {
  const server = new ExpressAdapter().setBasePath(QUEUE_DASHBOARD_PATH);
  createBullBoard({
    queues: queueNames.map((name) => new BullMQAdapter(ctx.queue.queue(name), { readOnlyMode: true, allowRetries: false })),
    serverAdapter: server,
    options: { uiConfig: { boardTitle: 'options-rfq queues' } },
  });
  const router = Router();
  router.use(requireOperator(ctx, token));
  router.use((_req, res, next) => {
    res.setHeader('Content-Security-Policy', QUEUE_DASHBOARD_CSP);
    next();
  });
  router.use(server.getRouter());
  return router;
}
