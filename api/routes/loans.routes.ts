import { LOAN_FEED_SUBJECT, loanFeed } from '../../shared/loans';
import { ValidationError } from '../../shared/platform/errors';
import { CHAIN_ID, chainIdOfQueryOrBody } from '../../shared/platform/validation';
import type { ApiContext } from '../context';
import { Reply, type RouteHandlers } from '../http/route-spec';
import type { loansSpecs } from './loans.http';

/** Explore for loans: each handler hands its parsed input to the loan service (shared/loans). */
export function loansHandlers(ctx: ApiContext): RouteHandlers<typeof loansSpecs> {
  const loans = ctx.services.loans;
  return {
    getLoanSummary: async ({ query }) => loans.summary(query),
    getLoansAtRisk: async ({ query }) => loans.atRisk(query),
    getRecentLoans: async ({ query }) => loans.recent(query),
    getLoanActivity: async ({ query }) => loans.activity(query),
    getLoanEvents: async ({ query }) => loans.events(query),
    mintLoanStream: async ({ query, body }) => {
      const chainId = chainIdOfQueryOrBody(query, body);
      if (chainId === undefined) throw ValidationError.field('chain_id', `${CHAIN_ID.message}, in the query (?chain_id=) or the JSON body`);
      await ctx.services.networks.requireNetwork(chainId);
      return new Reply(201, await ctx.services.exploreStreams.mint(loanFeed, chainId, LOAN_FEED_SUBJECT));
    },
    listLoans: async ({ query }) => loans.loans(query),
    getLoan: async ({ params }) => loans.loan(params.id),
    getLoanCollateral: async ({ params, query }) => loans.collateral(params.id, query),
  };
}
