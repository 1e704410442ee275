/**
 * Write budgets raised far past what a benchmark sends from its one address: the benchmarks
 * measure the create path, not the limiter's refusals. The limiter still runs (and costs its
 * Redis round trip), exactly as in production.
 */
export const BENCH_WRITE_LIMITS: Record<string, string> = {
  QUOTE_RATE_LIMIT_PER_IP: '10000000',
  QUOTE_RATE_LIMIT_PER_CREDENTIAL: '10000000',
  WRITE_RATE_LIMIT_PER_IP: '10000000',
  WRITE_RATE_LIMIT_PER_CREDENTIAL: '10000000',
};
