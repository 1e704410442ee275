import { Client } from 'pg';
import { withoutPassword } from '../logging';
import { describeRedis, lastConnectionError, type Redis, type RedisTarget } from '../redis';
import { probeRedis } from './probes';
import { WaitingCannotHelp, type StartCheck } from './start-checks';

/** SQLSTATEs that say the server answered and refused us: a wrong user or password, no such role, no such database. */
const AUTH_REFUSED = new Set(['28P01', '28000']);
const NO_DATABASE = '3D000';

/**
 * Postgres answers `SELECT 1` on a connection of its own, opened and closed per attempt. A
 * refused login stops the start at once; a missing database is fine when the process creates it
 * (`DATABASE_CREATE_IF_MISSING`), and stops it at once otherwise.
 */
export function postgresStartCheck(url: string, opts: { createIfMissing: boolean; timeoutMs: number }): StartCheck {
  return {
    dependency: 'postgres',
    url: withoutPassword(url, 'postgres'),
    async probe() {
      const client = new Client({ connectionString: url, connectionTimeoutMillis: opts.timeoutMs });
      // A connection dropped between attempts must not surface as an unhandled error event.
      client.on('error', () => undefined);
      try {
        await client.connect();
        await client.query('SELECT 1');
      } catch (err) {
        const code = (err as { code?: unknown }).code;
        if (code === NO_DATABASE && opts.createIfMissing) return;
        if (typeof code === 'string' && (AUTH_REFUSED.has(code) || code === NO_DATABASE)) throw new WaitingCannotHelp((err as Error).message);
        throw err;
      } finally {
        await client.end().catch(() => undefined);
      }
    },
  };
}

/**
 * The process's own Redis client answers PING (every master of a cluster, whose slot map it
 * holds). A failed attempt names what the client's connection last met (`connect ECONNREFUSED
 * 127.0.0.1:6390`) rather than the command's own error, which only says it was not sent.
 */
export function redisStartCheck(redis: Redis, target: RedisTarget, timeoutMs: number): StartCheck {
  return {
    dependency: redis.isCluster ? 'redis cluster' : 'redis',
    url: describeRedis(target),
    async probe() {
      const result = await probeRedis(redis, timeoutMs);
      if (result.ok) return;
      const connection: (Error & { lastNodeError?: Error }) | undefined = redis.status === 'ready' ? undefined : lastConnectionError(redis);
      // A cluster's "Failed to refresh slots cache." carries what the last seed node said.
      const node = connection?.lastNodeError ? ` (last node: ${connection.lastNodeError.message})` : '';
      throw new Error(connection ? `${connection.message}${node}` : (result.error ?? result.problem ?? 'no answer'));
    },
  };
}
