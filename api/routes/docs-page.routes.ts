import { readFileSync } from 'node:fs';
import { buildAsyncApiDocument } from '../http/asyncapi-document';
import { Reply, type RouteHandlers } from '../http/route-spec';
import { DOCS_ASSETS, type docsPageSpecs } from './docs-page.http';
import { renderDocsPage } from './docs-page.view';
import { API_VERSION } from './route-tags';

/**
 * Same origin only: Redoc's sidebar links an image on its CDN, and a docs page has no reason to
 * tell a third party who reads it. Styles inline (Redoc injects them), its search worker a blob.
 */
export const DOCS_PAGE_CSP =
  "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; worker-src 'self' blob:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

/** Builds the AsyncAPI document, the page and the assets once, at start: a missing file stops the process there. */
export function docsPageHandlers(): RouteHandlers<typeof docsPageSpecs> {
  const asyncapi = buildAsyncApiDocument(API_VERSION);
  const page = renderDocsPage(asyncapi, 'redoc.standalone.js');
  const assets = Object.fromEntries(Object.entries(DOCS_ASSETS).map(([name, file]) => [name, readFileSync(require.resolve(file), 'utf8')]));
  return {
    getAsyncApiDocument: async () => asyncapi,
    getDocsPage: async () => new Reply(200, page, { 'Content-Security-Policy': DOCS_PAGE_CSP }),
    getDocsAsset: async ({ params }) => assets[params.name],
  };
}
