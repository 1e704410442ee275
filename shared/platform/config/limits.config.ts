import { envInt } from './schema-helpers';

/**
 * Budgets of the write routes under /api, kept in Redis so every replica spends from the same
 * one. Three route classes (quote create; the offer dry-run; every other POST/PUT/PATCH/DELETE), each counted per
 * client IP (an IPv6 client per /64) and per credential, in fixed windows.
 */
export const limitsEnv = {
  /** POST /api/quote per client IP per window. */
  QUOTE_RATE_LIMIT_PER_IP: envInt(120, 1, 10_000_000),
  /** POST /api/quote per credential (delegate, taker key, maker key or SIWE wallet) per window. */
  QUOTE_RATE_LIMIT_PER_CREDENTIAL: envInt(120, 1, 10_000_000),
  /** Length of the quote-create window, in seconds. */
  QUOTE_RATE_WINDOW_SECONDS: envInt(60, 1, 86400),
  /** Every other write under /api (POST, PUT, PATCH, DELETE) per client IP per window. */
  WRITE_RATE_LIMIT_PER_IP: envInt(600, 1, 10_000_000),
  /** Every other write under /api per credential per window. */
  WRITE_RATE_LIMIT_PER_CREDENTIAL: envInt(600, 1, 10_000_000),
  /** Length of the write window, in seconds. */
  WRITE_RATE_WINDOW_SECONDS: envInt(60, 1, 86400),
  /** POST /api/quote/:id/dry-run per client IP per window (its own budget: a dry-run spends nothing of the write budget). */
  DRY_RUN_RATE_LIMIT_PER_IP: envInt(600, 1, 10_000_000),
  /** POST /api/quote/:id/dry-run per credential per window. */
  DRY_RUN_RATE_LIMIT_PER_CREDENTIAL: envInt(600, 1, 10_000_000),
  /** Length of the dry-run window, in seconds. */
  DRY_RUN_RATE_WINDOW_SECONDS: envInt(60, 1, 86400),
};
