import type { ApiContext } from '../context';
import type { RouteHandlers } from '../contract/route-contract';
import type { portfolioContracts } from './portfolio.contract';

/** Public portfolio snapshot of a wallet, from indexed chain data. */
export function portfolioHandlers(ctx: ApiContext): RouteHandlers<typeof portfolioContracts> {
  return {
    getPortfolio: async ({ params, query }) => ctx.services.portfolio.portfolio(params.address, query.chain_id),
  };
}
