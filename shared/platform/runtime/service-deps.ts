import type { DataSource } from 'typeorm';
import type { Config } from '../config';
import type { JobQueue } from '../queue';
import type { Logger } from '../logging';
import type { Metrics } from '../metrics';
import type { Redis } from '../redis';
import type { Tracing } from '../tracing';
import type { PrivateKeyAccount } from 'viem/accounts';

/** The process infrastructure a role is started with: opened once per process by bin/boot.ts, or per test file. */
export interface ServiceDeps {
  config: Config;
  logger: Logger;
  db: DataSource;
  /**
   * Where reads that tolerate lag go (indexed and Explore data): a read replica within its lag
   * bound, else the primary (shared/platform/db/read-replicas.ts). Absent = `db`. Read-only code only.
   */
  readDb?: DataSource;
  redis: Redis;
  metrics: Metrics;
  /** Where work is handed to the workers. */
  queue: JobQueue;
  /**
   * The service signer, built once at start by a process whose roles sign (api, workers; see
   * shared/chain/service-signer.ts). Absent in embedders (tests, benches): the roles then build
   * it from the configuration alone.
   */
  serviceSigner?: PrivateKeyAccount;
  /** The process's traces when TRACING_OTLP_URL (or OTEL_EXPORTER_OTLP_ENDPOINT) is set; absent = off (docs/TRACING.md). */
  tracing?: Tracing;
}
