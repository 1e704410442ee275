import type { DataSource } from 'typeorm';
import type { Config } from '../shared/config';
import { EventPublisher } from '../shared/events';
import type { JobQueue } from '../shared/jobs';
import type { Logger } from '../shared/logging';
import type { Metrics } from '../shared/metrics';
import { QuoteNotifier, type InterestedMakers } from '../shared/quotes';
import type { Redis } from '../shared/redis';

/** What the workers role is started with. */
export interface WorkerDeps {
  config: Config;
  logger: Logger;
  db: DataSource;
  redis: Redis;
  metrics: Metrics;
  queue: JobQueue;
}

/** What job handlers may use. */
export interface WorkerContext extends WorkerDeps {
  events: EventPublisher;
  notifier: QuoteNotifier;
}

export function buildWorkerContext(deps: WorkerDeps, interestedMakers: InterestedMakers): WorkerContext {
  const events = new EventPublisher({ redis: deps.redis, config: deps.config, metrics: deps.metrics });
  return { ...deps, events, notifier: new QuoteNotifier({ db: deps.db, events, logger: deps.logger, interestedMakers }) };
}
