import { envInt } from './schema-helpers';

export const ordersEnv = {
  /** How long an exclusive fill grants its maker the orders, in seconds (never past the orders' own expiry). */
  EXCLUSIVE_FILL_TTL_SECONDS: envInt(30, 1, 3600),
  /** Most orders one exclusive fill may cover. */
  EXCLUSIVE_FILL_MAX_ORDERS: envInt(20, 1, 500),
  /** The orders sweeper expires lost orders and fills and tells makers unheard fill states, this often (ms). */
  ORDER_SWEEP_INTERVAL_MS: envInt(5000, 200, 600000),
  /** Latest an order's timestamps (intentExpiry, intentStartTime, the option's expiry) may lie, in seconds from now. */
  ORDER_MAX_HORIZON_SECONDS: envInt(31536000, 60, 315360000),
};
