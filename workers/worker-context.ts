import type { ServiceDeps } from '../shared/platform/runtime';
import { EventPublisher } from '../shared/events';
import { QuoteNotifier, type InterestedMakers } from '../shared/quotes';

/** What the workers role is started with. */
export type WorkerDeps = ServiceDeps;

/** What job handlers may use. */
export interface WorkerContext extends WorkerDeps {
  events: EventPublisher;
  notifier: QuoteNotifier;
}

export function buildWorkerContext(deps: WorkerDeps, interestedMakers: InterestedMakers): WorkerContext {
  const events = new EventPublisher({ redis: deps.redis, config: deps.config, metrics: deps.metrics });
  return { ...deps, events, notifier: new QuoteNotifier({ db: deps.db, events, logger: deps.logger, interestedMakers }) };
}
