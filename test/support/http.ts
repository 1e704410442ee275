import type { Express } from 'express';
import { createApp } from '../../api/app';
import type { ApiContext } from '../../api/context';
import type { TestEnv } from './test-env';

/** The real Express app over a test environment, for supertest. */
export function buildApp(env: TestEnv): { app: Express; ctx: ApiContext } {
  return createApp({ config: env.config, logger: env.logger, db: env.db, redis: env.redis, metrics: env.metrics, queue: env.queue });
}
