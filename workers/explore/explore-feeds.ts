import { clobFeed, type ExploreFeed, type ExploreFeedName } from '../../shared/explore';
import { loanFeed } from '../../shared/loans';

/**
 * The live Explore feeds, by name: one entry per feed. The stream machinery (shared/explore)
 * knows no feed but its own CLOB one; each domain exports its feed and this table, in the role
 * that opens the streams, brings them together, so shared/explore never imports shared/loans and
 * shared/loans reads only shared/explore's index (bin/lint-deps.ts holds both). A job naming a
 * feed missing here fails for good.
 */
export const EXPLORE_FEEDS: Partial<Record<ExploreFeedName, ExploreFeed<never>>> = {
  clob: clobFeed as ExploreFeed<never>,
  loan: loanFeed as ExploreFeed<never>,
};
