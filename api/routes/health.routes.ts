import { healthProbes } from '../../shared/platform/http/health-probes';
import type { ApiContext } from '../context';
import type { RouteHandlers } from '../http/route-spec';
import type { healthSpecs } from './health.http';

/** The platform's probes, mounted from the API's specs (a socket-only process mounts them itself). */
export function healthHandlers(ctx: ApiContext): RouteHandlers<typeof healthSpecs> {
  const probes = healthProbes(ctx);
  return {
    liveness: async () => probes.live(),
    readiness: async (_input, req) => probes.ready(req),
    metrics: async (_input, _req, res) => {
      const m = await probes.metrics();
      res.setHeader('Content-Type', m.contentType);
      return m.text;
    },
  };
}
