import { envInt } from './schema-helpers';

export const quotesEnv = {
  /** Longest quote window a taker may ask for, in seconds. */
  QUOTE_MAX_EXPIRES_IN: envInt(300, 1, 86400),
  /** How long network lookups on the quote path are cached in-process, in ms. */
  REGISTRY_CACHE_MS: envInt(5000, 0, 600000),
  /** The sweeper re-announces and expires quotes whose jobs were lost, this often (ms). */
  QUOTE_SWEEP_INTERVAL_MS: envInt(5000, 200, 600000),
  /** A taker's stream token stays joinable this long after the quote window ends, in seconds. */
  QUOTE_STREAM_GRACE_SECONDS: envInt(3600, 0, 7 * 86400),
  /** How long an Idempotency-Key's first response is kept, in hours. */
  IDEMPOTENCY_TTL_HOURS: envInt(24, 1, 24 * 30),
  /**
   * An expiry job that fires this close to the end of a quote's window (clocks of Redis and the
   * workers disagree a little) expires the quote; fired earlier, it is put back until the end.
   */
  QUOTE_EXPIRY_SKEW_MS: envInt(1000, 0, 60000),
  /** Closed quotes (expired, filled, cancelled) are purged with their legs and offers this many days after closing. */
  QUOTE_RETENTION_DAYS: envInt(30, 1, 3650),
  /** The retention job runs this often (ms). */
  QUOTE_RETENTION_INTERVAL_MS: envInt(3_600_000, 1000, 7 * 86_400_000),
  /** Quotes deleted per retention batch (one statement, one short transaction). */
  QUOTE_RETENTION_BATCH: envInt(1000, 1, 100_000),
  /** Batches per retention run; what is left waits for the next run, so a backlog never makes one long job. */
  QUOTE_RETENTION_MAX_BATCHES: envInt(100, 1, 100_000),
  /** Longest wait for the chain when the API asks a Dutch request's fill authority (create and bid), in ms; past it the answer is 503. */
  FILL_AUTHORITY_RPC_TIMEOUT_MS: envInt(5000, 100, 60_000),
};
