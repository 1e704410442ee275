import { Router, type Request } from 'express';
import { AppError } from '../errors';
import { probePostgres, probeRedis } from '../health';
import type { ServiceDeps } from '../runtime';
import { noStore } from './cache';

type HealthDeps = Pick<ServiceDeps, 'config' | 'db' | 'redis' | 'metrics'>;

/**
 * What liveness, readiness and the metrics scrape answer, apart from how they are mounted: the
 * API mounts them from its route specs, a socket-only process through `healthRoutes`.
 */
export function healthProbes(ctx: HealthDeps) {
  return {
    live: () => ({ status: 'ok' as const, uptime_s: Math.round(process.uptime()) }),

    async ready(req: Request) {
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
      return { status: 'ready' as const, checks: Object.fromEntries(checks.map((c) => [c.name, { ok: true as const, ms: c.ms }])) };
    },

    async metrics(): Promise<{ contentType: string; text: string }> {
      return { contentType: ctx.metrics.registry.contentType, text: await ctx.metrics.registry.metrics() };
    },
  };
}

/**
 * Liveness, readiness and metrics; outside `/api` so load balancers need no auth. Every HTTP
 * role (api, socket) serves the same three, so one probe and scrape configuration fits all.
 */
export function healthRoutes(ctx: HealthDeps): Router {
  const r = Router();
  const probes = healthProbes(ctx);
  r.use(noStore);

  r.get('/healthz', (_req, res) => {
    res.json(probes.live());
  });

  r.get('/readyz', async (req, res) => {
    res.json(await probes.ready(req));
  });

  r.get('/metrics', async (_req, res) => {
    const m = await probes.metrics();
    res.setHeader('Content-Type', m.contentType);
    res.send(m.text);
  });
  return r;
}
