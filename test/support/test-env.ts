import { randomBytes, randomInt } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { DEVELOPMENT_SERVICE_SIGNER_KEY } from '../../shared/chain/service-signer';
import { loadConfig, type Config } from '../../shared/platform/config';
import { createDataSource } from '../../shared/entities';
import { JobQueue } from '../../shared/platform/queue';
import { createLogger, type Logger } from '../../shared/platform/logging';
import { Metrics } from '../../shared/platform/metrics';
import { closeRedis, createRedis, primaryNodes, type Redis } from '../../shared/platform/redis';
import { dropDatabase, runId, templateName, urlFor, withAdmin } from './test-db';

export interface TestEnv {
  config: Config;
  db: DataSource;
  redis: Redis;
  logger: Logger;
  metrics: Metrics;
  queue: JobQueue;
  /** The database's name, for tests that need a second connection. */
  dbName: string;
  close(): Promise<void>;
}

let counter = 0;

/** A config for tests: defaults plus overrides, quiet logs, devchain off. */
export function testConfig(overrides: Record<string, string | undefined> = {}): Config {
  return loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    DEVCHAIN: 'off',
    REDIS_URL: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
    // The test chains register the development signer; with DEVCHAIN=off it must be named (shared/chain/service-signer.ts).
    SERVICE_SIGNER_KEY: DEVELOPMENT_SERVICE_SIGNER_KEY,
    ...overrides,
  });
}

/**
 * A fresh, migrated database cloned from the run's template, and a Redis key prefix no other
 * test uses. `close()` drops the database and deletes the prefix's keys.
 */
export async function createTestEnv(overrides: Record<string, string | undefined> = {}): Promise<TestEnv> {
  const run = runId();
  const tag = `${process.pid}_${++counter}_${randomBytes(2).toString('hex')}`;
  const dbName = `rfq_t_${run}_${tag}`;
  await withAdmin(async (c) => {
    for (let attempt = 0; ; attempt++) {
      try {
        await c.query(`CREATE DATABASE "${dbName}" TEMPLATE "${templateName(run)}"`);
        return;
      } catch (err) {
        // Another file cloning the template at the same instant: retry shortly.
        if ((err as { code?: string }).code !== '55006' || attempt > 50) throw err;
        await new Promise((r) => setTimeout(r, 50 + randomInt(100)));
      }
    }
  });
  const prefix = `t:${run}:${tag}:`;
  const config = testConfig({ DATABASE_URL: urlFor(dbName), REDIS_PREFIX: prefix, ...overrides });
  const logger = createLogger({ level: config.LOG_LEVEL });
  const db = createDataSource({ url: config.DATABASE_URL, poolSize: 5 });
  await db.initialize();
  const redis = createRedis(config, { enableAutoPipelining: true }); // as bin/boot.ts
  const queueRedis = createRedis(config); // the queue's own client, as bin/boot.ts
  const queue = new JobQueue(queueRedis, prefix);
  return {
    config,
    db,
    redis,
    logger,
    metrics: new Metrics(false),
    queue,
    dbName,
    async close() {
      await queue.close();
      await closeRedis(queueRedis);
      await deleteKeys(redis, prefix);
      await closeRedis(redis);
      await db.destroy();
      await withAdmin((c) => dropDatabase(c, dbName));
    },
  };
}

async function deleteKeys(redis: Redis, prefix: string): Promise<void> {
  // SCAN walks one server: on a cluster, each master holds its own share of the keys.
  for (const node of primaryNodes(redis)) {
    let cursor = '0';
    try {
      do {
        const [next, keys] = await node.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
        cursor = next;
        // keys of one call may lie in different slots: one UNLINK each
        await Promise.all(keys.map((k) => node.unlink(k)));
      } while (cursor !== '0');
    } catch (err) {
      // A cluster master a fault test killed holds nothing any more; one Redis that fails is a failure.
      if (!redis.isCluster) throw err;
    }
  }
}
