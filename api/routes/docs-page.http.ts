import { z } from 'zod';
import { NotFoundError } from '../../shared/platform/errors';
import { errorCase } from '../http/error-cases';
import { defineRoute } from '../http/route-spec';

/** The files the docs page loads, served from node_modules (no CDN): name -> package file. */
export const DOCS_ASSETS = {
  'redoc.standalone.js': 'redoc/bundles/redoc.standalone.js',
} as const;

export type DocsAssetName = keyof typeof DOCS_ASSETS;

const assetNames = Object.keys(DOCS_ASSETS) as [DocsAssetName, ...DocsAssetName[]];

const assetNotFound = (name: string) => new NotFoundError(`no docs asset ${name}`, 'asset_not_found');

/** Every route of this group: documentation anyone may read and caches may keep. */
const PUBLIC_DOC = { tags: ['operations'], auth: { action: 'read_public' }, cache: 'public' } as const;

/** The socket's machine-readable contract and the human docs page over both documents (issue #12). */
export const docsPageSpecs = {
  getAsyncApiDocument: defineRoute({
    method: 'get',
    path: '/api/asyncapi.json',
    summary: 'The socket as an AsyncAPI 3 document',
    description: 'Generated at start from the topic table (shared/events/topic-table.ts); see docs/SOCKETS.md.',
    ...PUBLIC_DOC,
    request: {},
    responses: {
      200: {
        description: 'The AsyncAPI document.',
        schema: z.looseObject({
          asyncapi: z.literal('3.0.0'),
          info: z.looseObject({ title: z.string(), version: z.string() }),
          channels: z.record(z.string(), z.looseObject({ address: z.string() })),
          operations: z.record(z.string(), z.looseObject({ action: z.enum(['send', 'receive']) })),
        }),
      },
    },
    errors: [],
  }),
  getDocsPage: defineRoute({
    method: 'get',
    path: '/docs',
    summary: 'The API documentation for humans',
    description: 'Guides for a first quote and a first offer, the socket topics, and the REST reference rendered from /api/openapi.json.',
    ...PUBLIC_DOC,
    request: {},
    responses: {
      200: {
        description: 'The docs page.',
        contentType: 'text/html',
        schema: z.string().min(1),
        headers: { 'Content-Security-Policy': 'The page loads from this origin only (the renderer links a remote logo; it is not fetched).' },
      },
    },
    errors: [],
  }),
  getDocsAsset: defineRoute({
    method: 'get',
    path: '/docs/assets/:name',
    summary: 'A script the docs page loads',
    ...PUBLIC_DOC,
    request: {
      params: z.object({ name: z.enum(assetNames) }),
      paramsMiss: (raw: Record<string, string>) => assetNotFound(String(raw.name)),
    },
    responses: { 200: { description: 'The script.', contentType: 'text/javascript', schema: z.string().min(1) } },
    errors: [errorCase(404, 'asset_not_found', 'no docs asset nope.js')],
  }),
};
