import type { ApiContext } from '../context';
import type { RouteHandlers } from '../http/route-spec';
import type { indexerSpecs } from './indexer.http';

/** Indexer health and discovered CLOBs; 503 while the indexer or a network's RPC is unavailable. */
export function indexerHandlers(ctx: ApiContext): RouteHandlers<typeof indexerSpecs> {
  const { indexerStatus } = ctx.services;
  return {
    getIndexerStatus: async ({ query }) => indexerStatus.status(query.chain_id),
    listIndexerCores: async ({ query }) => indexerStatus.cores(query.chain_id),
  };
}
