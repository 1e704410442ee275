import { z } from 'zod';
import { defineRoute } from '../http/route-spec';
import { errorCase } from '../http/error-cases';

/** Probes and the scrape, outside /api so load balancers and Prometheus need no credential. */
export const healthSpecs = {
  liveness: defineRoute({
    method: 'get',
    path: '/healthz',
    summary: 'Liveness: the process answers',
    tags: ['operations'],
    auth: { action: 'read_public' },
    cache: 'no-store',
    request: {},
    responses: { 200: { description: 'Alive.', schema: z.strictObject({ status: z.literal('ok'), uptime_s: z.number().int().min(0) }) } },
    errors: [],
  }),
  readiness: defineRoute({
    method: 'get',
    path: '/readyz',
    summary: 'Readiness: Postgres and Redis answer within the probe timeout',
    tags: ['operations'],
    auth: { action: 'read_public' },
    cache: 'no-store',
    request: {},
    responses: {
      200: {
        description: 'Every dependency answered.',
        schema: z.strictObject({
          status: z.literal('ready'),
          checks: z.record(z.string(), z.strictObject({ ok: z.literal(true), ms: z.number().min(0) })),
        }),
      },
    },
    errors: [errorCase(503, 'not_ready', 'not ready: redis unreachable')],
  }),
  metrics: defineRoute({
    method: 'get',
    path: '/metrics',
    summary: 'Prometheus metrics',
    tags: ['operations'],
    auth: { action: 'read_public' },
    cache: 'no-store',
    request: {},
    responses: { 200: { description: 'Prometheus text exposition format.', contentType: 'text/plain', schema: z.string() } },
    errors: [],
  }),
};
