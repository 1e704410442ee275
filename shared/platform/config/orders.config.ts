import { envInt } from './schema-helpers';

export const ordersEnv = {
  /** How long an exclusive fill grants its maker the orders, in seconds (never past the orders' own expiry). */
  EXCLUSIVE_FILL_TTL_SECONDS: envInt(30, 1, 3600),
  /** Most orders one exclusive fill may cover. */
  EXCLUSIVE_FILL_MAX_ORDERS: envInt(20, 1, 500),
  /** The orders sweeper expires lost exclusive fills and tells makers unheard fill states, this often (ms). */
  ORDER_SWEEP_INTERVAL_MS: envInt(5000, 200, 600000),
  /** Latest an order's timestamps (intentExpiry, intentStartTime, the option's expiry) may lie, in seconds from now. */
  ORDER_MAX_HORIZON_SECONDS: envInt(31536000, 60, 315360000),
  /**
   * How long, in seconds, a record nobody confirmed (recorded without the owner's own credential,
   * never placed on chain) is kept after it was recorded; a record the owner made itself and never
   * placed, this long after it closed (docs/ORDERS.md, "Records nobody confirmed").
   */
  ORDER_UNCONFIRMED_RETENTION: envInt(604800, 1, 31_536_000),
  /** Most unconfirmed records per destination.from; a new one evicts the oldest. */
  ORDER_UNCONFIRMED_PER_OWNER: envInt(50, 1, 100_000),
  /** Most unconfirmed records per client IP bucket (an IPv4 address, an IPv6 /64); a new one evicts the oldest. */
  ORDER_UNCONFIRMED_PER_IP: envInt(1000, 1, 1_000_000),
  /** The order records sweeper (expires orders past their time, applies retention and the caps) runs this often (ms). */
  ORDER_RECORDS_SWEEP_INTERVAL_MS: envInt(60_000, 200, 3_600_000),
  /** Records the sweeper expires or deletes per batch (one statement each). */
  ORDER_RECORDS_SWEEP_BATCH: envInt(1000, 1, 100_000),
  /** Batches per step and run; what is left waits for the next run. */
  ORDER_RECORDS_SWEEP_MAX_BATCHES: envInt(100, 1, 100_000),
};
