export { IndexedDataRepository } from './indexed-data.repository';
export type { PairRecord } from './indexed-data.repository';
export { IndexerStatusService } from './indexer-status.service';
export type { NetworkStatusView, CoreView } from './indexer-status.service';
export { PortfolioService } from './portfolio.service';
export type { PortfolioView, HoldingView, ClosedHoldingView, OpenOrderView } from './portfolio.service';
