import { z } from 'zod';
import { envInt } from './schema-helpers';

/**
 * The operator's queue dashboard (`/ops/queues` on the api role). Its token is the only
 * credential it takes; without one the dashboard is not mounted at all.
 */
export const opsEnv = {
  /**
   * Secret of the queue dashboard, sent as the HTTP Basic password (any user name) or as a
   * bearer token. Printable ASCII without spaces, so both header forms carry it unchanged.
   */
  OPS_DASHBOARD_TOKEN: z
    .string()
    .min(32, 'must be at least 32 characters')
    .max(512, 'must be at most 512 characters')
    .regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces')
    .optional(),
  /** Wrong dashboard credentials one client IP (IPv6 per /64) may send per window before it is refused with 429. */
  OPS_DASHBOARD_FAILURES_PER_IP: envInt(10, 1, 10_000),
  /** The window of OPS_DASHBOARD_FAILURES_PER_IP, in seconds. */
  OPS_DASHBOARD_FAILURE_WINDOW_SECONDS: envInt(900, 1, 86400),
};
