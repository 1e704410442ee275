export { DutchService } from './dutch.service';
export { DutchAuctioneer } from './dutch-auctioneer';
export { DutchRepository } from './dutch.repository';
export { dutchAnnounceJob, dutchAwardJob, dutchBidAnnounceJob, dutchOpenJob } from './dutch.jobs';
export * from './dutch-views';
export type { DutchBidRow, DutchColumns } from './dutch.types';
export { assertNotFaded, decideExclusiveWindows, fadeStatus, fadeStatusOf } from './dutch-fades';
export type { FadePolicy, FadeStatus, NewFade } from './dutch-fades';
export * from '../../wire/src/dutch.wire';
