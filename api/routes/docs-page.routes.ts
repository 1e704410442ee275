import { readFileSync } from 'node:fs';
import { buildAsyncApiDocument } from '../contract/asyncapi-document';
import type { RouteHandlers } from '../contract/route-contract';
import { DOCS_ASSETS, type docsPageContracts } from './docs-page.contract';
import { renderDocsPage } from './docs-page.view';
import { API_VERSION } from './route-tags';

/** Builds the AsyncAPI document, the page and the assets once, at start: a missing file stops the process there. */
export function docsPageHandlers(): RouteHandlers<typeof docsPageContracts> {
  const asyncapi = buildAsyncApiDocument(API_VERSION);
  const page = renderDocsPage(asyncapi, 'redoc.standalone.js');
  const assets = Object.fromEntries(Object.entries(DOCS_ASSETS).map(([name, file]) => [name, readFileSync(require.resolve(file), 'utf8')]));
  return {
    getAsyncApiDocument: async () => asyncapi,
    getDocsPage: async () => page,
    getDocsAsset: async ({ params }) => assets[params.name],
  };
}
