import type { ServiceDeps } from '../shared/platform/runtime';
import type { Config } from '../shared/platform/config';
import { ensureDatabase, runMigrationsLocked } from '../shared/platform/db';
import { createDataSource } from '../shared/entities';
import { JobQueue } from '../shared/platform/queue';
import { Lifecycle } from '../shared/platform/lifecycle';
import { createLogger } from '../shared/platform/logging';
import { Metrics } from '../shared/platform/metrics';
import { closeRedis, createRedis } from '../shared/platform/redis';

/** The shared infrastructure every role uses, opened once per process and closed by the lifecycle. */
export interface Infra extends ServiceDeps {
  lifecycle: Lifecycle;
}

export async function openInfra(config: Config, opts: { migrate: boolean; name: string }): Promise<Infra> {
  const logger = createLogger({ level: config.LOG_LEVEL, base: { roles: config.ROLES.join(',') } });
  const lifecycle = new Lifecycle(logger, config.SHUTDOWN_TIMEOUT_MS);
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
  // Commands issued in the same turn of the event loop (concurrent requests' stream tokens, rate
  // limits, publishes) share one write and one read: under load that is most of them.
  const redis = createRedis(config, { enableAutoPipelining: true });
  lifecycle.onClose('redis', () => closeRedis(redis));
  // BullMQ defines its several dozen Lua scripts on the connection it is given, and ioredis copies
  // every defined script onto each pipeline it builds: on the shared client that made each
  // auto-pipelined flush cost more than the commands in it. The queue gets a client of its own.
  const queueRedis = createRedis(config);
  lifecycle.onClose('queue redis', () => closeRedis(queueRedis));
  const queue = new JobQueue(queueRedis, config.REDIS_PREFIX);
  lifecycle.onClose('job queues', () => queue.close());
  return { config, logger, lifecycle, db, redis, metrics: new Metrics(), queue };
}
