import { UnrecoverableError } from 'bullmq';
import { ExploreStreamHub, exploreStreamFanoutJob, exploreStreamOpenJob } from '../../shared/explore';
import { EXPLORE_FEEDS } from './explore-feeds';
import { handles, type BoundJob } from '../job-binding';

export const exploreHandlers: BoundJob[] = [
  handles(exploreStreamOpenJob, async (p, ctx) => {
    const feed = EXPLORE_FEEDS[p.feed];
    if (!feed) throw new UnrecoverableError(`no explore feed named ${p.feed}`);
    await new ExploreStreamHub(ctx).open(feed as never, p);
  }),
  handles(exploreStreamFanoutJob, async (p, ctx) => {
    const feed = EXPLORE_FEEDS[p.feed];
    if (!feed) throw new UnrecoverableError(`no explore feed named ${p.feed}`);
    await new ExploreStreamHub(ctx).fanout(feed as never, p.chain_id, p.subject);
  }),
];
