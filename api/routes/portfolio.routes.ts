import type { ApiContext } from '../context';
import type { RouteHandlers } from '../http/route-spec';
import type { portfolioSpecs } from './portfolio.http';

/** Public portfolio snapshot of a wallet, from indexed chain data. */
export function portfolioHandlers(ctx: ApiContext): RouteHandlers<typeof portfolioSpecs> {
  return {
    getPortfolio: async ({ params, query }) => ctx.services.portfolio.portfolio(params.address, query.chain_id),
  };
}
