export { DutchService } from './dutch.service';
export { DutchAuctioneer } from './dutch-auctioneer';
export { DutchRepository } from './dutch.repository';
export { dutchAnnounceJob, dutchAwardJob, dutchBidAnnounceJob, dutchOpenJob } from './dutch.jobs';
export * from './dutch-views';
export type { DutchBidRow, DutchColumns } from './dutch.types';
