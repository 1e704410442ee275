import { z } from 'zod';
import { serverEnv } from './server.config';
import { storageEnv } from './storage.config';
import { challengeEnv } from './challenge.config';
import { socketEnv } from './socket.config';
import { chainEnv } from './chain.config';
import { authEnv, authKeyProblems } from './auth.config';
import { indexerEnv, indexerLeaseProblems } from './indexer.config';
import { quotesEnv } from './quotes.config';
import { limitsEnv } from './limits.config';
import { signerEnv } from './signer.config';
import { ordersEnv } from './orders.config';
import { bondsEnv } from './bonds.config';
import { opsEnv } from './ops.config';
import { tracingEnv } from './tracing.config';
import { redisEndpointProblems } from './redis-endpoint';

/**
 * The environment schema, assembled from one section per concern. A section is a plain
 * object of zod schemas keyed by variable name; add a new concern as a new section file.
 */
const envSchema = z.object({
  ...serverEnv,
  ...storageEnv,
  ...challengeEnv,
  ...socketEnv,
  ...chainEnv,
  ...authEnv,
  ...indexerEnv,
  ...quotesEnv,
  ...limitsEnv,
  ...signerEnv,
  ...ordersEnv,
  ...bondsEnv,
  ...opsEnv,
  ...tracingEnv,
});

export type Env = z.output<typeof envSchema>;

/** Every variable the service reads, optional ones included. */
export const CONFIG_KEYS: readonly string[] = Object.keys(envSchema.shape);

/** Raised at start when the environment is wrong; lists every bad key at once. */
export class ConfigError extends Error {
  constructor(readonly problems: { key: string; message: string }[]) {
    super(
      `invalid configuration (${problems.length} problem${problems.length === 1 ? '' : 's'}):\n` + problems.map((p) => `  ${p.key}: ${p.message}`).join('\n'),
    );
    this.name = 'ConfigError';
  }
}

export type Config = Readonly<Env>;

/**
 * Parses and validates an environment. Empty strings count as unset so that
 * `FOO=` in a compose file falls back to the default.
 */
export function loadConfig(env: Record<string, string | undefined>): Config {
  const cleaned: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined && v !== '') cleaned[k] = v;
  const parsed = envSchema.safeParse(cleaned);
  const problems = parsed.success ? [] : parsed.error.issues.map((i) => ({ key: String(i.path[0] ?? '?'), message: i.message }));
  problems.push(...authKeyProblems(cleaned), ...redisEndpointProblems(cleaned));
  if (parsed.success) problems.push(...indexerLeaseProblems(parsed.data));
  if (!parsed.success || problems.length > 0) throw new ConfigError(problems);
  return Object.freeze(parsed.data);
}

/** The process environment; the one place in the code base that reads it. */
export function configFromProcess(): Config {
  return loadConfig(process.env);
}
