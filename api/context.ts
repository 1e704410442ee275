import type { DataSource } from 'typeorm';
import type { Config } from '../shared/config';
import type { JobQueue } from '../shared/jobs';
import type { Logger } from '../shared/logging';
import type { Metrics } from '../shared/metrics';
import type { Redis } from '../shared/redis';
import { RegistryService } from '../shared/registry';

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
}

export interface ApiContext extends ApiDeps {
  services: ApiServices;
}

export function buildContext(deps: ApiDeps): ApiContext {
  return {
    ...deps,
    services: {
      registry: new RegistryService(deps.db),
    },
  };
}
