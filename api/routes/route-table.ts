import type { ApiContext } from '../context';
import type { BoundRoute } from '../http/mount-routes';
import type { NamedRouteSpec, RouteSpec, RouteHandlers } from '../http/route-spec';
import { apiDocsSpecs } from './api-docs.http';
import { apiDocsHandlers } from './api-docs.routes';
import { docsPageSpecs } from './docs-page.http';
import { docsPageHandlers } from './docs-page.routes';
import { healthSpecs } from './health.http';
import { healthHandlers } from './health.routes';
import { identitySpecs } from './identity.http';
import { identityHandlers } from './identity.routes';
import { indexerSpecs } from './indexer.http';
import { indexerHandlers } from './indexer.routes';
import { makerKeysSpecs } from './maker-keys.http';
import { makerKeysHandlers } from './maker-keys.routes';
import { loansSpecs } from './loans.http';
import { loansHandlers } from './loans.routes';
import { ordersSpecs } from './orders.http';
import { ordersHandlers } from './orders.routes';
import { portfolioSpecs } from './portfolio.http';
import { exploreClobSpecs } from './explore-clob.http';
import { exploreClobHandlers } from './explore-clob.routes';
import { portfolioHandlers } from './portfolio.routes';
import { publicSpecs } from './public.http';
import { publicHandlers } from './public.routes';
import { pubsubSpecs } from './pubsub.http';
import { pubsubHandlers } from './pubsub.routes';
import { quoteSpecs } from './quote.http';
import { quoteHandlers } from './quote.routes';
import { takerSpecs } from './taker.http';
import { takerHandlers } from './taker.routes';

type Group = Record<string, RouteSpec>;
type Merged<T extends Group[]> = (T extends (infer G)[] ? (G extends Group ? (x: G) => void : never) : never) extends (x: infer I) => void ? I : never;

/** Merges spec groups; an id or a method + path declared twice stops the process at load. */
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
 * describes and the conformance tests compare with the spec. Add a route to its group's
 * `*.http.ts` and its handler to the group's `*.routes.ts`; see docs/API.md.
 */
export const ROUTE_SPECS = combine(
  healthSpecs,
  apiDocsSpecs,
  docsPageSpecs,
  publicSpecs,
  identitySpecs,
  makerKeysSpecs,
  takerSpecs,
  quoteSpecs,
  ordersSpecs,
  pubsubSpecs,
  indexerSpecs,
  portfolioSpecs,
  exploreClobSpecs,
  loansSpecs,
);

export type RouteId = keyof typeof ROUTE_SPECS;

export const API_ROUTES: readonly NamedRouteSpec[] = Object.entries(ROUTE_SPECS).map(([id, c]) => ({ ...(c as RouteSpec), id }));

/** Each route with its handler; the type makes a spec without a handler a compile error. */
export function boundRoutes(ctx: ApiContext): BoundRoute[] {
  const handlers: RouteHandlers<typeof ROUTE_SPECS> = {
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
  return API_ROUTES.map((spec) => ({ spec, binding: handlers[spec.id as RouteId] as BoundRoute['binding'] }));
}
