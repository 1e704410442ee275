import { z } from 'zod';
import { envBool, envInt, envList, envUrl } from './schema-helpers';
import { redisClusterNodesEnv, redisUrlEnv } from './redis-endpoint';

export const storageEnv = {
  DATABASE_URL: envUrl('postgres://postgres@127.0.0.1:5432/options_rfq', ['postgres:', 'postgresql:']),
  /** Create the database named in DATABASE_URL when it does not exist. */
  DATABASE_CREATE_IF_MISSING: envBool(true),
  DATABASE_POOL_SIZE: envInt(10, 1, 200),
  /**
   * Postgres cancels any statement of the pool running longer than this (0 = never). A runaway
   * query or a lock wait then fails one request instead of holding a pooled connection forever.
   */
  DATABASE_STATEMENT_TIMEOUT_MS: envInt(10_000, 0, 3_600_000),
  /**
   * Read replicas of DATABASE_URL (streaming standbys), comma-separated postgres URLs. Reads of
   * indexed and Explore data go to one of them while it is up and within
   * DATABASE_REPLICA_MAX_LAG_MS; everything else, and every read when none qualifies, goes to
   * the primary.
   */
  DATABASE_REPLICA_URLS: envList('').refine(
    (urls) =>
      urls.every((u) => {
        try {
          return ['postgres:', 'postgresql:'].includes(new URL(u).protocol);
        } catch {
          return false;
        }
      }),
    'must be a comma-separated list of postgres:// URLs',
  ),
  /** A replica further behind the primary than this serves no reads until it catches up. */
  DATABASE_REPLICA_MAX_LAG_MS: envInt(2000, 0, 3_600_000),
  /** How often each replica's health and lag are measured (reads use the latest measurement). */
  DATABASE_REPLICA_CHECK_MS: envInt(500, 50, 60_000),
  /** One Redis (redis://, rediss://), or a cluster's seed nodes (redis+cluster://host:port,host:port). */
  REDIS_URL: redisUrlEnv,
  /** Seed nodes of a Redis Cluster, host:port comma-separated; set = every Redis user talks to that cluster. */
  REDIS_CLUSTER_NODES: redisClusterNodesEnv,
  /** Prefix of every Redis key and BullMQ queue this deployment owns. */
  REDIS_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9:_.-]{1,64}$/, 'letters, digits and : _ . - only, at most 64')
    .default('rfq:'),
  /**
   * Every role refuses to start (exit 78) on a Redis whose `maxmemory-policy` is not
   * `noeviction`: an evicting Redis drops queued jobs, registrations and seq counters key by key,
   * unseen. `true` says the operator accepts that; the service then starts, warns, and the epoch
   * check and the sweepers redo what they can (docs/FAULTS.md, "Redis data loss").
   */
  REDIS_ALLOW_EVICTION: envBool(false),
  /**
   * How often each process checks the Redis epoch key (a flush, a restart without persistence,
   * a failover that lost writes, an eviction) and the workers check that their job schedulers
   * are still installed (ms). A loss is noticed within about this long.
   */
  REDIS_EPOCH_CHECK_MS: envInt(1000, 100, 60_000),
  /** Health probes give up after this long. */
  PROBE_TIMEOUT_MS: envInt(2000, 50, 60000),
};
