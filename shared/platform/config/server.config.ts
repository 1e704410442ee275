import { isIP } from 'node:net';
import { z } from 'zod';
import { envBool, envInt, envList } from './schema-helpers';

export const DEFAULT_HOST = '127.0.0.1';

/**
 * True when binding `host` keeps the server reachable from this machine only: `localhost`,
 * 127.0.0.0/8 or ::1 (bracketed or IPv4-mapped). Wildcards, other addresses and other names are not.
 */
export function isLoopbackHost(host: string): boolean {
  const h = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1');
  if (h === 'localhost') return true;
  const v4 = h.startsWith('::ffff:') ? h.slice('::ffff:'.length) : h;
  if (isIP(v4) === 4) return v4.split('.')[0] === '127';
  return isIP(h) === 6 && /^(0{0,4}:){7}0{0,3}1$|^::1$/.test(h);
}

export const ROLE_NAMES = ['api', 'socket', 'workers', 'indexer'] as const;
export type Role = (typeof ROLE_NAMES)[number];

export const serverEnv = {
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  ROLES: envList(ROLE_NAMES.join(',')).pipe(z.array(z.enum(ROLE_NAMES, { message: `each role must be one of ${ROLE_NAMES.join(', ')}` })).min(1)),
  HOST: z.string().min(1).default(DEFAULT_HOST),
  PORT: envInt(8080, 0, 65535),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Origins allowed by CORS and by the Explore gate's Origin check. */
  CORS_ORIGINS: envList('http://localhost:3000,http://127.0.0.1:3000'),
  /** Largest JSON body accepted, in bytes. */
  BODY_LIMIT_BYTES: envInt(256 * 1024, 1024, 16 * 1024 * 1024),
  /** max-age of the public network and token responses. */
  PUBLIC_CACHE_SECONDS: envInt(30, 0, 86400),
  /** How long SIGTERM waits for in-flight work before closing anyway. */
  SHUTDOWN_TIMEOUT_MS: envInt(10000, 100, 600000),
  /** Trust X-Forwarded-For from this many proxy hops (0 = none). */
  TRUST_PROXY_HOPS: envInt(0, 0, 10),
  /** Run migrations when the process starts (npm start does). */
  MIGRATE_ON_START: envBool(true),
  /**
   * How long a starting process keeps trying a dependency it needs (Postgres, Redis, each
   * network's RPC for the indexer) before it exits naming it (exit 69); 0 tries each once.
   */
  START_TIMEOUT_SECONDS: envInt(60, 0, 86_400),
};
