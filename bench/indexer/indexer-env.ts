/** The Redis the indexer benches' processes use (BENCH_REDIS_URL). */
export const BENCH_REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * The environment of an indexer process a bench starts (`ROLES=indexer`, no devchain, its own
 * database and Redis prefix, indexing from block 0), with a bench's own settings on top.
 */
export function indexerEnv(opts: { databaseUrl: string; redisPrefix: string; logLevel: string }, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? '',
    ROLES: 'indexer',
    DEVCHAIN: 'off',
    MIGRATE_ON_START: 'false',
    LOG_LEVEL: process.env.BENCH_INDEXER_LOG_LEVEL ?? opts.logLevel,
    DATABASE_URL: opts.databaseUrl,
    REDIS_URL: BENCH_REDIS_URL,
    REDIS_PREFIX: opts.redisPrefix,
    INDEXER_START_BLOCK: '0',
    ...extra,
  };
}

/** What an operator behind a hosted provider sets: short timeouts, enough retries, short backoff. */
export const HOSTED_PROVIDER_SETTINGS: Readonly<Record<string, string>> = {
  INDEXER_RPC_TIMEOUT_MS: process.env.BENCH_RPC_TIMEOUT_MS ?? '1000',
  INDEXER_RPC_RETRIES: '10',
  INDEXER_RPC_BACKOFF_MS: '20',
  INDEXER_RPC_BACKOFF_MAX_MS: '200',
};
