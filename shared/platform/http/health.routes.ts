import { Router } from 'express';
import { AppError } from '../errors';
import { probePostgres, probeRedis } from '../health';
import type { ServiceDeps } from '../runtime';
import { noStore } from './cache';

/**
 * Liveness, readiness and metrics; outside `/api` so load balancers need no auth. Every HTTP
 * role (api, socket) serves the same three, so one probe and scrape configuration fits all.
 */
export function healthRoutes(ctx: Pick<ServiceDeps, 'config' | 'db' | 'redis' | 'metrics'>): Router {
  const r = Router();
  r.use(noStore);

  r.get('/healthz', (_req, res) => {
    res.json({ status: 'ok', uptime_s: Math.round(process.uptime()) });
  });

  r.get('/readyz', async (req, res) => {
    const ms = ctx.config.PROBE_TIMEOUT_MS;
    const checks = await Promise.all([probePostgres(ctx.db, ms), probeRedis(ctx.redis, ms)]);
    const failed = checks.filter((c) => !c.ok);
    if (failed.length > 0) {
      // The driver's words can name hosts, users and paths: the operator reads them in the log.
      for (const c of failed) req.log.warn({ dependency: c.name, error: c.error, ms: c.ms }, 'dependency not ready');
      throw new AppError(
        503,
        'not_ready',
        `not ready: ${failed.map((c) => c.name).join(', ')} unreachable`,
        failed.map((c) => ({ path: c.name, message: c.problem ?? 'unreachable' })),
        { 'Retry-After': '5' },
      );
    }
    res.json({ status: 'ready', checks: Object.fromEntries(checks.map((c) => [c.name, { ok: true, ms: c.ms }])) });
  });

  r.get('/metrics', async (_req, res) => {
    res.setHeader('Content-Type', ctx.metrics.registry.contentType);
    res.send(await ctx.metrics.registry.metrics());
  });
  return r;
}
