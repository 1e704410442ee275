import type { TestEnv } from '../../support/test-env';

/** The environment that points a spawned bin/main.ts (api and workers) at a test's database and Redis prefix. */
export function serviceEnv(env: TestEnv, extra: Record<string, string> = {}): Record<string, string> {
  return {
    ROLES: 'api,workers',
    DATABASE_URL: env.config.DATABASE_URL,
    REDIS_URL: env.config.REDIS_URL,
    ...(env.config.REDIS_CLUSTER_NODES.length > 0 ? { REDIS_CLUSTER_NODES: env.config.REDIS_CLUSTER_NODES.map((n) => `${n.host}:${n.port}`).join(',') } : {}),
    REDIS_PREFIX: env.config.REDIS_PREFIX,
    DEVCHAIN: 'off',
    ...extra,
  };
}
