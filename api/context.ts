import type { DataSource } from 'typeorm';
import type { Config } from '../shared/config';
import type { JobQueue } from '../shared/jobs';
import type { Logger } from '../shared/logging';
import type { Metrics } from '../shared/metrics';
import type { Redis } from '../shared/redis';
import { OfferService, PairDirectory, QuoteService } from '../shared/quotes';
import { RegistryService } from '../shared/registry';
import { PubsubRegistrations } from '../shared/events';
import { StreamTokens } from '../shared/streams';
import { IdentityService } from '../shared/identity';
import { IndexerStatusService, PortfolioService } from '../shared/chain-data';

/** What the API needs from the outside world; tests build one per database. */
export interface ApiDeps {
  config: Config;
  logger: Logger;
  db: DataSource;
  redis: Redis;
  metrics: Metrics;
  /** Where the API hands work to the workers; it never publishes to sockets itself. */
  queue: JobQueue;
}

/** The services routes call, built once per app from its deps. */
export interface ApiServices {
  registry: RegistryService;
  pubsub: PubsubRegistrations;
  identity: IdentityService;
  pairs: PairDirectory;
  quotes: QuoteService;
  offers: OfferService;
  indexerStatus: IndexerStatusService;
  portfolio: PortfolioService;
}

export interface ApiContext extends ApiDeps {
  services: ApiServices;
}

export function buildContext(deps: ApiDeps): ApiContext {
  const pairs = new PairDirectory(deps.db, deps.config.REGISTRY_CACHE_MS);
  const streamTokens = new StreamTokens(deps.redis, deps.config.REDIS_PREFIX);
  return {
    ...deps,
    services: {
      registry: new RegistryService(deps.db),
      pubsub: new PubsubRegistrations(deps.redis, deps.config),
      identity: new IdentityService(deps),
      pairs,
      quotes: new QuoteService({ ...deps, pairs, streamTokens }),
      offers: new OfferService({ ...deps, pairs }),
      indexerStatus: new IndexerStatusService(deps.db, deps.config.INDEXER_STATUS_STALE_MS),
      portfolio: new PortfolioService(deps.db),
    },
  };
}
