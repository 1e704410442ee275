import { envInt } from './schema-helpers';

export const quotesEnv = {
  /** Longest quote window a taker may ask for, in seconds. */
  QUOTE_MAX_EXPIRES_IN: envInt(300, 1, 86400),
  /** How long registry lookups on the quote path are cached in-process, in ms. */
  REGISTRY_CACHE_MS: envInt(5000, 0, 600000),
  /** The sweeper re-announces and expires quotes whose jobs were lost, this often (ms). */
  QUOTE_SWEEP_INTERVAL_MS: envInt(5000, 200, 600000),
  /** A taker's stream token stays joinable this long after the quote window ends, in seconds. */
  QUOTE_STREAM_GRACE_SECONDS: envInt(3600, 0, 7 * 86400),
  /** How long an Idempotency-Key's first response is kept, in hours. */
  IDEMPOTENCY_TTL_HOURS: envInt(24, 1, 24 * 30),
};
