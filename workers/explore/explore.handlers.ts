import { UnrecoverableError } from 'bullmq';
import { EXPLORE_FEEDS, ExploreStreamHub, exploreStreamOpenJob } from '../../shared/explore';
import { handles, type RegisteredJob } from '../job-registry';

export const exploreHandlers: RegisteredJob[] = [
  handles(exploreStreamOpenJob, async (p, ctx) => {
    const feed = EXPLORE_FEEDS[p.feed];
    if (!feed) throw new UnrecoverableError(`no explore feed named ${p.feed}`);
    await new ExploreStreamHub(ctx).open(feed as never, p);
  }),
];
