import type { ServiceDeps } from '../shared/platform/runtime';
import type { Config } from '../shared/platform/config';
import { ensureDatabase, ReadReplicas, runMigrationsLocked } from '../shared/platform/db';
import { createDataSource } from '../shared/entities';
import { JobQueue } from '../shared/platform/queue';
import { Lifecycle } from '../shared/platform/lifecycle';
import { createLogger, type Logger } from '../shared/platform/logging';
import { Metrics } from '../shared/platform/metrics';
import { checkEvictionPolicy, closeRedis, createRedis, describeRedis, RedisEpoch, reportOutages } from '../shared/platform/redis';
import { checkDependencies, postgresStartCheck, redisStartCheck } from '../shared/platform/health';
import { Tracing } from '../shared/platform/tracing';
import { PubsubRegistrations } from '../shared/events';
import { KeyRevocations } from '../shared/identity';

/** The shared infrastructure every role uses, opened once per process and closed by the lifecycle. */
export interface Infra extends ServiceDeps {
  lifecycle: Lifecycle;
}

/** The process's logger, as configured: LOG_LEVEL, the roles on every line, trace ids when the process traces. */
export function processLogger(config: Config, traceIds = false): Logger {
  return createLogger({ level: config.LOG_LEVEL, base: { roles: config.ROLES.join(',') }, traceIds });
}

export async function openInfra(config: Config, opts: { migrate: boolean; name: string }): Promise<Infra> {
  const tracing = (await Tracing.start(config)) ?? undefined;
  const logger = processLogger(config, tracing !== undefined);
  const lifecycle = new Lifecycle(logger, config.SHUTDOWN_TIMEOUT_MS);
  // First registered, last closed: the spans of the drain itself are exported too.
  if (tracing) lifecycle.onClose('tracing', () => tracing.shutdown());
  // Commands issued in the same turn of the event loop (concurrent requests' stream tokens, rate
  // limits, publishes) share one write and one read: under load that is most of them.
  const redis = createRedis(config, { enableAutoPipelining: true });
  lifecycle.onClose('redis', () => closeRedis(redis));
  // BullMQ defines its several dozen Lua scripts on the connection it is given, and ioredis copies
  // every defined script onto each pipeline it builds: on the shared client that made each
  // auto-pipelined flush cost more than the commands in it. The queue gets a client of its own.
  const queueRedis = createRedis(config);
  lifecycle.onClose('queue redis', () => closeRedis(queueRedis));
  // Nothing is opened on a dependency that does not answer: each is tried until it does, for up
  // to START_TIMEOUT_SECONDS, and the start stops naming the ones that did not (bin/main.ts, exit 69).
  await checkDependencies(
    [
      postgresStartCheck(config.DATABASE_URL, { createIfMissing: config.DATABASE_CREATE_IF_MISSING, timeoutMs: config.PROBE_TIMEOUT_MS }),
      redisStartCheck(redis, config, config.PROBE_TIMEOUT_MS),
    ],
    { timeoutSeconds: config.START_TIMEOUT_SECONDS, logger },
  );
  // Once running, an outage is one line when a client loses Redis and one when it is back.
  for (const [client, name] of [
    [redis, 'commands'],
    [queueRedis, 'queue'],
  ] as const) {
    reportOutages(client, {
      lost: (err) => logger.warn({ dependency: 'redis', url: describeRedis(config), client: name, err: err.message }, 'redis connection lost: reconnecting'),
      back: () => logger.info({ dependency: 'redis', url: describeRedis(config), client: name }, 'redis connection back'),
    });
  }
  if (config.DATABASE_CREATE_IF_MISSING && (await ensureDatabase(config.DATABASE_URL))) {
    logger.info('created database');
  }
  const db = createDataSource({
    url: config.DATABASE_URL,
    poolSize: config.DATABASE_POOL_SIZE,
    applicationName: opts.name,
    statementTimeoutMs: config.DATABASE_STATEMENT_TIMEOUT_MS,
  });
  await db.initialize();
  lifecycle.onClose('postgres pool', () => db.destroy());
  if (opts.migrate) {
    const ran = await runMigrationsLocked(db, { onWait: () => logger.info('another process is migrating; waiting for the migration lock') });
    logger.info({ applied: ran.map((m) => m.name) }, ran.length ? 'migrations applied' : 'schema up to date');
  }
  const metrics = new Metrics();
  let readDb = db;
  if (config.DATABASE_REPLICA_URLS.length > 0) {
    const reads = metrics.counter('rfq_db_routed_reads_total', 'Reads that may run on a replica, by where they ran', ['target']);
    const replicas = new ReadReplicas(
      db,
      config.DATABASE_REPLICA_URLS.map((url) => ({
        url,
        // Connected by the first check, not here: a replica that is down delays nothing.
        ds: createDataSource({
          url,
          poolSize: config.DATABASE_POOL_SIZE,
          applicationName: `${opts.name}:replica`,
          statementTimeoutMs: config.DATABASE_STATEMENT_TIMEOUT_MS,
          connectTimeoutMs: config.PROBE_TIMEOUT_MS,
        }),
      })),
      {
        maxLagMs: config.DATABASE_REPLICA_MAX_LAG_MS,
        checkMs: config.DATABASE_REPLICA_CHECK_MS,
        onChange: (s) =>
          logger.warn({ replica: s.name, lag_ms: s.lagMs, problem: s.problem }, s.serving ? 'replica serving reads' : 'replica not serving reads'),
        onRead: (target) => reads.inc({ target }),
      },
    );
    replicas.start();
    lifecycle.onClose('postgres replicas', () => replicas.close());
    readDb = replicas.reader();
  }
  const queue = new JobQueue(queueRedis, config.REDIS_PREFIX);
  lifecycle.onClose('job queues', () => queue.close());
  return { config, logger, lifecycle, db, readDb, redis, metrics, queue, tracing };
}

/**
 * What every role checks of its Redis before it starts: that Redis does not evict keys
 * (`maxmemory-policy noeviction`, else `RedisEvictionRefused`: exit 78, unless
 * REDIS_ALLOW_EVICTION), and its data epoch, checked every REDIS_EPOCH_CHECK_MS from then on so a
 * flush, a restart without persistence, a failover that lost writes or an eviction is noticed in
 * seconds (docs/FAULTS.md, "Redis data loss"). The epoch is found again by `RedisEpoch.of(redis)`.
 */
export async function guardRedis(infra: Infra, name: string): Promise<RedisEpoch> {
  const { config, logger, metrics } = infra;
  await checkEvictionPolicy(infra.redis, { allowEviction: config.REDIS_ALLOW_EVICTION, logger, metrics });
  const epoch = new RedisEpoch(infra.redis, infra.db, { prefix: config.REDIS_PREFIX, name, logger, metrics });
  // The makers' registrations are back before anything can announce in the new epoch (a premium
  // maker's rfq_maker topic is chosen from them at each announcement).
  const registrations = new PubsubRegistrations(infra.redis, config, infra.db);
  const keys = new KeyRevocations(infra.db);
  epoch.beforeOpen(() => registrations.restore((ids) => keys.revokedAmong(ids)));
  await epoch.start();
  epoch.startTimer(config.REDIS_EPOCH_CHECK_MS);
  infra.lifecycle.onClose('redis epoch', () => epoch.close());
  return epoch;
}
