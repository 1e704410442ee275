import type { ServiceDeps } from '../shared/platform/runtime';
import { OfferService, PairDirectory, QuoteService } from '../shared/quotes';
import { DutchService } from '../shared/dutch';
import { RegistryService } from '../shared/registry';
import { PubsubRegistrations } from '../shared/events';
import { StreamTokens } from '../shared/platform/stream-tokens';
import { IdentityService } from '../shared/identity';
import { IndexerStatusService, PortfolioService } from '../shared/indexed';

/** What the API needs from the outside world; tests build one per database. It hands work to the workers through `queue` and never publishes to sockets itself. */
export type ApiDeps = ServiceDeps;

/** The services routes call, built once per app from its deps. */
export interface ApiServices {
  registry: RegistryService;
  pubsub: PubsubRegistrations;
  identity: IdentityService;
  pairs: PairDirectory;
  quotes: QuoteService;
  offers: OfferService;
  dutch: DutchService;
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
      dutch: new DutchService({ ...deps, pairs, streamTokens }),
      indexerStatus: new IndexerStatusService(deps.db, deps.config.INDEXER_STATUS_STALE_MS),
      portfolio: new PortfolioService(deps.db),
    },
  };
}
