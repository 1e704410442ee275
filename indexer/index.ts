import type { DataSource } from 'typeorm';
import type { Config } from '../shared/config';
import type { Lifecycle } from '../shared/lifecycle';
import type { Logger } from '../shared/logging';

export interface IndexerDeps {
  config: Config;
  logger: Logger;
  db: DataSource;
}

/** The indexer role. The chain tailer arrives with issue 7; until then the role only reports that. */
export async function startIndexer(deps: IndexerDeps, _lifecycle: Lifecycle): Promise<void> {
  deps.logger.warn('indexer role selected but the chain tailer is not built yet (issue 7)');
}
