import type { DataSource } from 'typeorm';
import type { Config } from '../config';
import type { JobQueue } from '../queue';
import type { Logger } from '../logging';
import type { Metrics } from '../metrics';
import type { Redis } from '../redis';

/** The process infrastructure a role is started with: opened once per process by bin/boot.ts, or per test file. */
export interface ServiceDeps {
  config: Config;
  logger: Logger;
  db: DataSource;
  redis: Redis;
  metrics: Metrics;
  /** Where work is handed to the workers. */
  queue: JobQueue;
}
