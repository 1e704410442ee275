import type { NamedRouteSpec, RouteHandlers } from '../http/route-spec';
import { buildOpenApiDocument } from '../http/openapi-document';
import type { apiDocsSpecs } from './api-docs.http';
import { ROUTE_TAGS, API_VERSION } from './route-tags';

/** Serves the document built once, at start, from the routes the app mounts. */
export function apiDocsHandlers(routes: readonly NamedRouteSpec[]): RouteHandlers<typeof apiDocsSpecs> {
  const document = buildOpenApiDocument(routes, ROUTE_TAGS, API_VERSION);
  return { getOpenApiDocument: async () => document };
}
