import type { ApiContext } from '../context';
import type { BoundRoute } from '../contract/mount-routes';
import type { NamedContract, RouteContract, RouteHandlers } from '../contract/route-contract';
import { apiDocsContracts } from './api-docs.contract';
import { apiDocsHandlers } from './api-docs.routes';
import { docsPageContracts } from './docs-page.contract';
import { docsPageHandlers } from './docs-page.routes';
import { healthContracts } from './health.contract';
import { healthHandlers } from './health.routes';
import { identityContracts } from './identity.contract';
import { identityHandlers } from './identity.routes';
import { indexerContracts } from './indexer.contract';
import { indexerHandlers } from './indexer.routes';
import { makerKeysContracts } from './maker-keys.contract';
import { makerKeysHandlers } from './maker-keys.routes';
import { loansContracts } from './loans.contract';
import { loansHandlers } from './loans.routes';
import { ordersContracts } from './orders.contract';
import { ordersHandlers } from './orders.routes';
import { portfolioContracts } from './portfolio.contract';
import { exploreClobContracts } from './explore-clob.contract';
import { exploreClobHandlers } from './explore-clob.routes';
import { portfolioHandlers } from './portfolio.routes';
import { publicContracts } from './public.contract';
import { publicHandlers } from './public.routes';
import { pubsubContracts } from './pubsub.contract';
import { pubsubHandlers } from './pubsub.routes';
import { quoteContracts } from './quote.contract';
import { quoteHandlers } from './quote.routes';
import { takerContracts } from './taker.contract';
import { takerHandlers } from './taker.routes';

type Group = Record<string, RouteContract>;
type Merged<T extends Group[]> = (T extends (infer G)[] ? (G extends Group ? (x: G) => void : never) : never) extends (x: infer I) => void ? I : never;

/** Merges contract groups; an id or a method + path declared twice stops the process at load. */
function combine<T extends Group[]>(...groups: T): Merged<T> {
  const out: Group = {};
  const seen = new Set<string>();
  for (const group of groups) {
    for (const [id, c] of Object.entries(group)) {
      const route = `${c.method.toUpperCase()} ${c.path.toLowerCase()}`;
      if (out[id]) throw new Error(`route id ${id} is declared twice`);
      if (seen.has(route)) throw new Error(`route ${route} is declared twice`);
      out[id] = c;
      seen.add(route);
    }
  }
  return out as Merged<T>;
}

/**
 * Every route the API serves, in mount order: the one list the app mounts, the OpenAPI document
 * describes and the contract tests compare with the spec. Add a route to its group's
 * `*.contract.ts` and its handler to the group's `*.routes.ts`; see docs/API.md.
 */
export const ROUTE_CONTRACTS = combine(
  healthContracts,
  apiDocsContracts,
  docsPageContracts,
  publicContracts,
  identityContracts,
  makerKeysContracts,
  takerContracts,
  quoteContracts,
  ordersContracts,
  pubsubContracts,
  indexerContracts,
  portfolioContracts,
  exploreClobContracts,
  loansContracts,
);

export type RouteId = keyof typeof ROUTE_CONTRACTS;

export const API_ROUTES: readonly NamedContract[] = Object.entries(ROUTE_CONTRACTS).map(([id, c]) => ({ ...(c as RouteContract), id }));

/** Each route with its handler; the type makes a contract without a handler a compile error. */
export function boundRoutes(ctx: ApiContext): BoundRoute[] {
  const handlers: RouteHandlers<typeof ROUTE_CONTRACTS> = {
    ...healthHandlers(ctx),
    ...apiDocsHandlers(API_ROUTES),
    ...docsPageHandlers(),
    ...publicHandlers(ctx),
    ...identityHandlers(ctx),
    ...makerKeysHandlers(ctx),
    ...takerHandlers(ctx),
    ...quoteHandlers(ctx),
    ...ordersHandlers(ctx),
    ...pubsubHandlers(ctx),
    ...loansHandlers(ctx),
    ...indexerHandlers(ctx),
    ...portfolioHandlers(ctx),
    ...exploreClobHandlers(ctx),
  };
  return API_ROUTES.map((contract) => ({ contract, binding: handlers[contract.id as RouteId] as BoundRoute['binding'] }));
}
