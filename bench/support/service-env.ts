import { randomBytes } from 'node:crypto';
import { BENCH_WRITE_LIMITS } from './bench-limits';
import { benchPrefix } from './bench-cleanup';

/**
 * The environment of a service process a bench starts with `bin/main.ts`: production mode on its
 * own throwaway database and Redis prefix (its keys deleted when the bench ends), no devchain, fresh secrets (production refuses the
 * public development signing key), the write budgets raised past what one bench address sends.
 * `extra` adds or overrides keys (limits a bench needs raised, RPC settings, log level).
 */
export function benchServiceEnv(opts: { roles: string; databaseUrl: string; tag: string; extra?: Record<string, string> }): Record<string, string> {
  return {
    ROLES: opts.roles,
    PORT: '0',
    DATABASE_URL: opts.databaseUrl,
    REDIS_PREFIX: benchPrefix(opts.tag),
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
    DEVCHAIN: 'off',
    NODE_ENV: 'production',
    JWT_SECRET: randomBytes(32).toString('hex'),
    SERVICE_SIGNER_KEY: `0x${randomBytes(32).toString('hex')}`,
    ...BENCH_WRITE_LIMITS,
    ...opts.extra,
  };
}
