import type { NamedContract, RouteHandlers } from '../contract/route-contract';
import { buildOpenApiDocument } from '../contract/openapi-document';
import type { apiDocsContracts } from './api-docs.contract';
import { ROUTE_TAGS, API_VERSION } from './route-tags';

/** Serves the document built once, at start, from the routes the app mounts. */
export function apiDocsHandlers(routes: readonly NamedContract[]): RouteHandlers<typeof apiDocsContracts> {
  const document = buildOpenApiDocument(routes, ROUTE_TAGS, API_VERSION);
  return { getOpenApiDocument: async () => document };
}
