import { Reply, type RouteHandlers } from '../http/route-spec';
import type { ApiContext } from '../context';
import { clobFeed } from '../../shared/explore';
import { chainIdOfQueryOrBody } from '../../shared/platform/validation';
import type { exploreClobSpecs } from './explore-clob.http';

/** Explore for CLOBs: each handler asks shared/explore and answers what it says. */
export function exploreClobHandlers(ctx: ApiContext): RouteHandlers<typeof exploreClobSpecs> {
  const clobs = ctx.services.clobExplore;
  return {
    getExploreClob: async ({ params, query }) => clobs.overview(params.address, query.chain_id),
    postExploreClobStream: async ({ params, query, body }) => {
      const p = await clobs.pair(params.address, chainIdOfQueryOrBody(query, body));
      return new Reply(201, await ctx.services.exploreStreams.mint(clobFeed, p.chain_id, p.address));
    },
    getClobBooks: async ({ query }) => clobs.chainBook(query),
    getClobBook: async ({ params, query }) => clobs.book(params.address, query),
    getClobActivity: async ({ params, query }) => clobs.activity(params.address, query),
    getClobFills: async ({ params, query }) => clobs.fills(params.address, query),
    getClobSummary: async ({ params, query }) => clobs.summary(params.address, query),
  };
}
