import type { ExploreFeed } from './explore-feed';
import type { ExploreFeedName } from './explore-watchers';
import { clobFeed } from './clob/clob-feed';
import { loanFeed } from '../loans/loan-feed';

/**
 * The live Explore feeds, by name: one entry per feed (the loan feed adds `loan`). Workers open
 * streams of any feed here; a job naming a feed missing here fails for good.
 */
export const EXPLORE_FEEDS: Partial<Record<ExploreFeedName, ExploreFeed<never>>> = {
  clob: clobFeed as ExploreFeed<never>,
  loan: loanFeed as ExploreFeed<never>,
};

export function exploreFeed(name: ExploreFeedName): ExploreFeed {
  const feed = EXPLORE_FEEDS[name];
  if (!feed) throw new Error(`no explore feed named ${name}`);
  return feed as unknown as ExploreFeed;
}
