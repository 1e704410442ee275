import { z } from 'zod';
import { DEFAULT_GEOBLOCK_HEADER } from '../../shared/platform/config';
import { AUTH_ERRORS, errorBodySchema, PLATFORM_ERRORS, type ErrorCase } from './error-cases';
import { openApiPath, pathParamNames } from './path-template';
import { answersOf } from './route-answers';
import type { HttpMethod, NamedRouteSpec, ResponseSpec } from './route-spec';
import { authDoc, authSentence, challengeActionOf, SECURITY_SCHEMES, type SchemeName, type SecurityScheme } from './route-security';
import { describeSharedSchema, type Json } from './schema-docs';

/**
 * The OpenAPI 3.1 document, generated from the route specs when the app starts. Request
 * schemas are rendered as clients send them (zod `io: 'input'`), responses as the service
 * answers them (`io: 'output'`); bodies become named components, error statuses share one
 * ErrorBody schema and show each code the route can answer as an example. Third-party tools
 * check it: Redocly's recommended rules (redocly.yaml) and openapi-typescript (docs/API.md).
 */

type JsonSchema = Json & { properties?: Record<string, Json>; required?: string[] };

export type OpenApiDocument = {
  openapi: '3.1.0';
  info: { title: string; version: string; description: string; license: { name: string; identifier: string } };
  servers: { url: string; description: string }[];
  tags: { name: string; description: string }[];
  paths: Record<string, Partial<Record<HttpMethod, Json>>>;
  components: {
    schemas: Record<string, Json>;
    parameters: Record<string, Json>;
    securitySchemes: Record<SchemeName, SecurityScheme>;
    examples: Record<string, Json>;
  };
};

const ALL_METHODS: HttpMethod[] = ['get', 'post', 'put', 'patch', 'delete'];

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad request: a field, the JSON or the path is malformed.',
  401: 'No valid credential for this route.',
  403: 'The credential may not do this.',
  404: 'Not found.',
  409: 'Conflicts with the current state.',
  410: 'Removed.',
  413: 'Body larger than BODY_LIMIT_BYTES.',
  415: 'Unsupported content encoding or charset.',
  429: 'Over a rate limit: wait Retry-After seconds.',
  500: 'Unexpected error: the body carries only the request id.',
  501: 'Not available yet.',
  503: 'A dependency is unavailable: retry after Retry-After seconds.',
};

const pascal = (id: string) => id.charAt(0).toUpperCase() + id.slice(1);

/** Converts one set of named component schemas (a zod registry), with references between components. */
function componentsOf(components: z.core.$ZodRegistry<{ id: string }>, io: 'input' | 'output'): Record<string, Json> {
  const out = z.toJSONSchema(components, { io, uri: (id) => `#/components/schemas/${id}`, override: describeSharedSchema }).schemas;
  return Object.fromEntries(
    Object.entries(out).map(([id, schema]) => {
      const { $schema: _s, $id: _i, ...rest } = schema as Json;
      return [id, rest];
    }),
  );
}

/** Registers `schema` under `id` (or finds the id it already has) and answers a $ref to it. */
function refTo(components: z.core.$ZodRegistry<{ id: string }>, schema: z.ZodType, id: string): Json {
  const known = components.get(schema)?.id;
  if (!known) components.add(schema, { id });
  return { $ref: `#/components/schemas/${known ?? id}` };
}

/**
 * Headers read before or around a route's own parsing, declared once under
 * components.parameters: the request id every route takes (and answers in X-Request-Id), and the
 * country header the Explore gate reads (set by the edge; a geoblocked country is a 403).
 */
const SHARED_PARAMETERS = {
  RequestId: {
    name: 'X-Request-Id',
    in: 'header',
    required: false,
    description:
      'Names the request in the logs and in the answer (X-Request-Id, and request_id of an error): 8-128 of A-Z a-z 0-9 . _ -; anything else is replaced by a fresh uuid.',
    schema: { type: 'string' },
  },
  GeoCountry: {
    name: DEFAULT_GEOBLOCK_HEADER,
    in: 'header',
    required: false,
    description:
      `The client's ISO 3166 alpha-2 country, set by the edge (the header GEOBLOCK_HEADER names, default ${DEFAULT_GEOBLOCK_HEADER}); ` +
      'a country in GEOBLOCK_COUNTRIES answers 403 geoblocked. Browsers and bots do not send it.',
    schema: { type: 'string' },
  },
} as const satisfies Record<string, Json>;

/**
 * Path, query and header parameters, then the shared headers the route reads. A parameter a
 * security scheme also names (the quote stream token) is declared as well, so generated clients
 * can pass it.
 */
function parameters(c: NamedRouteSpec, used: Set<string>): Json[] {
  const out: Json[] = [];
  const parts: ['path' | 'query' | 'header', z.ZodType | undefined][] = [
    ['path', c.request.params],
    ['query', c.request.query],
    ['header', c.request.headers],
  ];
  for (const [where, schema] of parts) {
    if (!schema) continue;
    const json = z.toJSONSchema(schema, { io: 'input', override: describeSharedSchema }) as JsonSchema;
    for (const [name, prop] of Object.entries(json.properties ?? {})) {
      const { description, ...propSchema } = prop;
      out.push({
        name: where === 'header' ? name.replace(/(^|-)([a-z])/g, (_m, dash: string, ch: string) => dash + ch.toUpperCase()) : name,
        in: where,
        required: where === 'path' || (json.required ?? []).includes(name),
        ...(description ? { description } : {}),
        schema: propSchema,
      });
    }
  }
  const declared = new Set(out.filter((p) => p.in === 'path').map((p) => p.name));
  const missing = pathParamNames(c.path).filter((n) => !declared.has(n));
  if (missing.length > 0) throw new Error(`route ${c.id} (${c.path}) declares no schema for path parameter(s) ${missing.join(', ')}`);
  const explore = !('streamToken' in c.auth) && c.auth.action === 'explore';
  const shared: (keyof typeof SHARED_PARAMETERS)[] = explore ? ['RequestId', 'GeoCountry'] : ['RequestId'];
  for (const name of shared) used.add(name);
  return [...out, ...shared.map((name) => ({ $ref: `#/components/parameters/${name}` }))];
}

function successResponse(spec: ResponseSpec, ref: Json): Json {
  const type = spec.contentType ?? 'application/json';
  return {
    description: spec.description,
    content: { [type]: { schema: ref, ...(spec.examples ? { examples: spec.examples } : {}) } },
  };
}

const RETRY_AFTER = { 'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer', minimum: 1 } } };

const REQUEST_ID = '3f1c2a4e-5b6d-4e7f-8a9b-0c1d2e3f4a5b';
const errorExample = (e: ErrorCase): Json => ({ summary: e.code, value: { error: e.example, code: e.code, request_id: REQUEST_ID } });

/**
 * The errors of the credentials and the platform, each shown once under components.examples
 * (the spec's Explore texts among them) and referenced by every route that can answer them.
 */
const SHARED_ERRORS = new Map<ErrorCase, string>(Object.entries({ ...PLATFORM_ERRORS, ...AUTH_ERRORS }).map(([key, e]) => [e, key]));

/** `used` collects the shared examples referenced, so components.examples holds only those. */
function errorResponse(status: number, cases: ErrorCase[], used: Set<string>): Json {
  return {
    description: STATUS_TEXT[status] ?? 'Error.',
    ...(status === 429 || status === 503 || cases.some((c) => c.code === 'maker_faded') ? { headers: RETRY_AFTER } : {}),
    content: {
      'application/json': {
        schema: { $ref: '#/components/schemas/ErrorBody' },
        examples: Object.fromEntries(
          cases.map((e) => {
            const shared = SHARED_ERRORS.get(e);
            if (shared) used.add(shared);
            return [e.code, shared ? { $ref: `#/components/examples/${shared}` } : errorExample(e)];
          }),
        ),
      },
    },
  };
}

interface ComponentSets {
  inputs: z.core.$ZodRegistry<{ id: string }>;
  outputs: z.core.$ZodRegistry<{ id: string }>;
  /** The shared examples and parameters referenced: the components hold only those. */
  examples: Set<string>;
  parameters: Set<string>;
}

function operation(c: NamedRouteSpec, { inputs, outputs, examples, parameters: sharedParameters }: ComponentSets, operationId: string): Json {
  const answers = answersOf(c);
  const responses: Json = {};
  for (const [status, spec] of answers.success) {
    const name = answers.success.size > 1 ? `${pascal(c.id)}Response${status}` : `${pascal(c.id)}Response`;
    responses[String(status)] = successResponse(spec, refTo(outputs, spec.schema, name));
  }
  for (const [status, cases] of answers.errors) responses[String(status)] = errorResponse(status, cases, examples);
  const body = c.request.body;
  const challengeAction = challengeActionOf(c.auth);
  return {
    operationId,
    summary: c.summary,
    description: [c.description, authSentence(c.auth)].filter(Boolean).join('\n\n'),
    tags: [...c.tags],
    ...(c.deprecated ? { deprecated: true } : {}),
    security: authDoc(c.auth).security,
    // The widget action an X-Challenge-Response token must be solved for (docs/AUTH.md, "Bot challenge").
    ...(challengeAction ? { 'x-challenge-action': challengeAction } : {}),
    parameters: parameters(c, sharedParameters),
    ...(body
      ? {
          requestBody: {
            // Optional when the schema takes no body at all (a stream mint whose chain_id may come in the query).
            required: !body.safeParse(undefined).success,
            content: {
              'application/json': { schema: refTo(inputs, body, `${pascal(c.id)}Request`), ...(c.request.examples ? { examples: c.request.examples } : {}) },
            },
          },
        }
      : {}),
    responses,
  };
}

/** The schemes, the challenge's naming the widget actions of `routes` (each operation names its own). */
function securitySchemes(routes: readonly NamedRouteSpec[]): OpenApiDocument['components']['securitySchemes'] {
  const actions = [...new Set(routes.map((r) => challengeActionOf(r.auth)).filter((a) => a !== null))];
  const { challengeResponse } = SECURITY_SCHEMES;
  return {
    ...SECURITY_SCHEMES,
    challengeResponse: {
      ...challengeResponse,
      description: `${challengeResponse.description} Widget actions: ${actions.join(', ')}; each operation that takes the token names its action in x-challenge-action.`,
    },
  };
}

/** The document for `routes`, in their mount order. `tags` describes each tag the routes use. */
export function buildOpenApiDocument(routes: readonly NamedRouteSpec[], tags: Record<string, string>, version: string): OpenApiDocument {
  const sets: ComponentSets = { inputs: z.registry<{ id: string }>(), outputs: z.registry<{ id: string }>(), examples: new Set(), parameters: new Set() };
  const { inputs, outputs } = sets;
  outputs.add(errorBodySchema, { id: 'ErrorBody' });
  const paths: OpenApiDocument['paths'] = {};
  for (const c of routes) {
    const path = openApiPath(c.path);
    const item = (paths[path] ??= {});
    const methods = c.method === 'all' ? ALL_METHODS : [c.method];
    for (const m of methods) {
      if (item[m]) throw new Error(`two routes answer ${m.toUpperCase()} ${c.path}`);
      item[m] = operation(c, sets, c.method === 'all' ? `${c.id}${pascal(m)}` : c.id);
    }
  }
  const used = [...new Set(routes.flatMap((r) => r.tags))];
  const undescribed = used.filter((t) => !tags[t]);
  if (undescribed.length > 0) throw new Error(`tags without a description: ${undescribed.join(', ')}`);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Options RFQ, Orders and Explore API',
      version,
      description:
        'REST API of the on-chain options RFQ market. Live traffic (quote feeds, offers, results) uses the Phoenix-channel WebSocket at /socket (docs/SOCKETS.md). ' +
        'Errors always carry {error, code, details?, request_id}; big integers are decimal strings; times are ISO 8601 UTC unless a field says unix seconds.',
      // The package is UNLICENSED: no SPDX license applies, so the identifier is a LicenseRef.
      license: { name: 'Proprietary: all rights reserved', identifier: 'LicenseRef-Proprietary' },
    },
    // Relative: the paths are from the root of whichever origin serves this document.
    servers: [{ url: '/', description: 'The service that serves this document (local default http://127.0.0.1:8080).' }],
    tags: used.map((name) => ({ name, description: tags[name] })),
    paths,
    components: {
      schemas: { ...componentsOf(inputs, 'input'), ...componentsOf(outputs, 'output') },
      parameters: Object.fromEntries(Object.entries(SHARED_PARAMETERS).filter(([name]) => sets.parameters.has(name))),
      securitySchemes: securitySchemes(routes),
      examples: Object.fromEntries([...SHARED_ERRORS].filter(([, key]) => sets.examples.has(key)).map(([e, key]) => [key, errorExample(e)])),
    },
  };
}
