import type { DataSource } from 'typeorm';
import type { Config } from '../shared/config';
import type { JobQueue } from '../shared/jobs';
import type { Logger } from '../shared/logging';
import type { Metrics } from '../shared/metrics';
import type { Redis } from '../shared/redis';

/** What job handlers may use. */
export interface WorkerContext {
  config: Config;
  logger: Logger;
  db: DataSource;
  redis: Redis;
  metrics: Metrics;
  queue: JobQueue;
}
