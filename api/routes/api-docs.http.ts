import { z } from 'zod';
import { defineRoute } from '../http/route-spec';

/** The machine-readable spec itself. */
export const apiDocsSpecs = {
  getOpenApiDocument: defineRoute({
    method: 'get',
    path: '/api/openapi.json',
    summary: 'This API as an OpenAPI 3.1 document',
    description: 'Generated at start from the route contracts the service mounts; see docs/API.md.',
    tags: ['operations'],
    auth: { action: 'read_public' },
    cache: 'public',
    request: {},
    responses: {
      200: {
        description: 'The OpenAPI document.',
        schema: z.looseObject({
          openapi: z.literal('3.1.0'),
          info: z.looseObject({ title: z.string(), version: z.string() }),
          paths: z.record(z.string(), z.record(z.string(), z.unknown())),
          components: z.looseObject({ schemas: z.record(z.string(), z.unknown()), securitySchemes: z.record(z.string(), z.unknown()) }),
        }),
      },
    },
    errors: [],
  }),
};
