import { dutchAnnounceJob, dutchAwardJob, dutchBidAnnounceJob, dutchOpenJob } from '../../shared/dutch';
import { handles, type BoundJob } from '../job-binding';
import { awardDutch, openDutch } from './dutch-phases';

export const dutchHandlers: BoundJob[] = [
  handles(dutchAnnounceJob, (p, ctx) => ctx.dutch.announce(p.quote_id)),
  handles(dutchAwardJob, (p, ctx) => awardDutch(ctx, p.quote_id)),
  handles(dutchOpenJob, (p, ctx) => openDutch(ctx, p.quote_id)),
  handles(dutchBidAnnounceJob, (p, ctx) => ctx.dutch.announceBid(p.bid_id, p.version)),
];
