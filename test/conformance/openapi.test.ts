import SwaggerParser from '@apidevtools/swagger-parser';
import type { Express } from 'express';
import { buildOpenApiDocument, type OpenApiDocument } from '../../api/http/openapi-document';
import { AUTH_RULE_DOCS, SECURITY_SCHEMES } from '../../api/http/route-security';
import { QUOTE_CHALLENGE_ACTION, WHO_NEEDS_WHAT } from '../../api/auth';
import { API_ROUTES } from '../../api/routes/route-table';
import { API_VERSION, ROUTE_TAGS } from '../../api/routes/route-tags';
import { BUTTERFLY_EXAMPLE, PACKAGE_OFFER_EXAMPLE } from '../../api/routes/quote.http';
import { delegateSchemas } from '../../shared/identity';
import { parseOfferRequest } from '../../shared/quotes/offer-request';
import { NetworksService } from '../../shared/networks';
import { networkFile } from '../support/fixtures';
import { buildApp, request } from '../support/http';
import { createTestEnv, type TestEnv } from '../support/test-env';

type Operation = {
  operationId: string;
  tags: string[];
  'x-challenge-action'?: string;
  security: Record<string, string[]>[];
  requestBody?: { content: Record<string, { examples?: Record<string, { value: unknown }> }> };
  responses: Record<
    string,
    { content?: Record<string, { schema: { $ref?: string }; examples?: Record<string, { $ref?: string; value?: { code: string } }> }> }
  >;
};

const operations = (doc: OpenApiDocument): Operation[] => Object.values(doc.paths).flatMap((item) => Object.values(item) as Operation[]);

/** The spec's Explore gate and rate-limit texts ("Errors"), which clients match on. */
const SPEC_ERROR_TEXTS = [
  'siwe or taker delegate required',
  'taker API key delegate required',
  'origin header required',
  'origin not allowed',
  'challenge verification required',
  'too many requests',
];

describe('the OpenAPI document', () => {
  let env: TestEnv;
  let app: Express;
  let doc: OpenApiDocument;

  beforeAll(async () => {
    env = await createTestEnv();
    app = buildApp(env).app;
    // The network whose pair the quote example names.
    await new NetworksService(env.db).upsertNetwork(networkFile(31337));
    doc = buildOpenApiDocument(API_ROUTES, ROUTE_TAGS, API_VERSION);
  });
  afterAll(() => env.close());

  it('is valid OpenAPI 3.1 for a maintained validator', async () => {
    // The validator dereferences in place: give it a copy.
    const validated = (await SwaggerParser.validate(structuredClone(doc) as never)) as unknown as OpenApiDocument;
    expect(validated.openapi).toBe('3.1.0');
  });

  it('is served at GET /api/openapi.json, as built from the mounted routes, and cacheable', async () => {
    const res = await request(app).get('/api/openapi.json').expect(200);
    expect(res.body).toEqual(JSON.parse(JSON.stringify(doc)));
    expect(res.headers['cache-control']).toMatch(/^public/);
  });

  it("has a security scheme for each of the spec's credentials and documents every auth rule", () => {
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(
      ['challengeResponse', 'delegateJwt', 'exploreOrigin', 'makerKey', 'siweBearer', 'streamTokenHeader', 'streamTokenQuery', 'takerKey'].sort(),
    );
    expect(SECURITY_SCHEMES.exploreOrigin).toMatchObject({ in: 'header', name: 'Origin' });
    expect(SECURITY_SCHEMES.challengeResponse).toMatchObject({ in: 'header', name: 'X-Challenge-Response' });
    for (const rule of new Set(Object.values(WHO_NEEDS_WHAT))) expect(AUTH_RULE_DOCS[rule].security.length).toBeGreaterThan(0);
    const schemes = new Set(Object.keys(doc.components.securitySchemes));
    for (const op of operations(doc))
      for (const req of op.security) for (const name of Object.keys(req)) expect([op.operationId, schemes.has(name)]).toEqual([op.operationId, true]);
  });

  it("answers every error status with the error body and an example per code, the spec's texts among them", () => {
    for (const op of operations(doc)) {
      const errors = Object.entries(op.responses).filter(([status]) => Number(status) >= 400);
      expect([op.operationId, errors.some(([s]) => s === '500')]).toEqual([op.operationId, true]);
      for (const [status, r] of errors) {
        const json = r.content?.['application/json'];
        expect([op.operationId, status, json?.schema.$ref]).toEqual([op.operationId, status, '#/components/schemas/ErrorBody']);
        expect(Object.keys(json?.examples ?? {}).length).toBeGreaterThan(0);
        for (const ex of Object.values(json?.examples ?? {})) {
          const value = ex.$ref ? doc.components.examples[ex.$ref.split('/').pop() as string]?.value : ex.value;
          expect(value).toEqual(expect.objectContaining({ code: expect.stringMatching(/^[a-z][a-z0-9_]*$/), error: expect.any(String) }));
        }
      }
    }
    const texts = Object.values(doc.components.examples).map((e) => (e.value as { error: string }).error);
    for (const text of SPEC_ERROR_TEXTS) expect(texts).toContain(text);
  });

  it('shows a butterfly quote create, a package offer and a delegate mint that the service accepts', async () => {
    const exampleOf = (operationId: string, name: string) =>
      operations(doc).find((o) => o.operationId === operationId)?.requestBody?.content['application/json'].examples?.[name]?.value;
    expect(exampleOf('createQuote', 'butterfly')).toEqual(BUTTERFLY_EXAMPLE);
    expect(exampleOf('submitOffer', 'butterfly')).toEqual(PACKAGE_OFFER_EXAMPLE);
    expect(exampleOf('mintDelegate', 'withKey')).toEqual({ address: expect.any(String), expires_in: expect.any(Number) });

    // The examples are real requests: the quote is created as documented...
    const created = await request(app).post('/api/quote').send(BUTTERFLY_EXAMPLE).expect(201);
    expect(created.body.quote).toMatchObject({ strategy: 'butterfly', directions: [1, 0, 1] });
    // ...the offer parses with the route's parser (its binding to a live quote needs a real signature)...
    const now = PACKAGE_OFFER_EXAMPLE.deadline - 3600;
    expect(parseOfferRequest(PACKAGE_OFFER_EXAMPLE, now).offer.legs).toHaveLength(3);
    // ...and the delegate body is the one a taker key mints with.
    expect(delegateSchemas(env.config.DELEGATE_MAX_TTL_SECONDS).withKey.safeParse(exampleOf('mintDelegate', 'withKey')).success).toBe(true);
  });

  it("names each operation's bot-challenge widget action, as docs/API.md tables them, and lists them in the scheme", () => {
    // docs/API.md, "Bot-challenge actions": quote creation, the Explore CLOB routes, the Explore loan routes.
    // Quote creation, and any later route with its auth row (its rule checks the same action).
    const createsQuotes = new Set(API_ROUTES.filter((r) => 'action' in r.auth && r.auth.action === 'create_quote').map((r) => r.id));
    expect(createsQuotes.has('createQuote')).toBe(true);
    const expected = (op: Operation) =>
      createsQuotes.has(op.operationId)
        ? QUOTE_CHALLENGE_ACTION
        : op.tags.includes('explore: loans')
          ? 'explore-loan'
          : op.tags.includes('explore')
            ? 'explore-clob'
            : undefined;
    const wrong = operations(doc).filter((op) => op['x-challenge-action'] !== expected(op));
    expect(wrong.map((op) => [op.operationId, op['x-challenge-action']])).toEqual([]);
    const named = new Set(operations(doc).map((op) => op['x-challenge-action']));
    expect([...named].sort()).toEqual(['explore-clob', 'explore-loan', 'quote-create', undefined]);
    expect(QUOTE_CHALLENGE_ACTION).toBe('quote-create');
    expect(doc.components.securitySchemes.challengeResponse.description).toContain(
      'Widget actions: quote-create, explore-clob, explore-loan; each operation that takes the token names its action in x-challenge-action.',
    );
  });

  it('declares the parameters routes read outside their specs, and the stream token as parameters too', () => {
    type Parameter = { name?: string; in?: string; $ref?: string };
    const params = (op: Operation) => (op as unknown as { parameters: Parameter[] }).parameters;
    const poll = operations(doc).find((op) => op.operationId === 'pollQuote') as Operation;
    expect(params(poll)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'stream_token', in: 'query', required: false }),
        expect.objectContaining({ name: 'X-Quote-Stream-Token', in: 'header', required: false }),
      ]),
    );
    for (const op of operations(doc)) {
      const refs = params(op).flatMap((p) => (p.$ref ? [p.$ref] : []));
      const explore = op.tags.includes('explore') || op.tags.includes('explore: loans');
      const expected = ['#/components/parameters/RequestId', ...(explore ? ['#/components/parameters/GeoCountry'] : [])];
      expect([op.operationId, refs]).toEqual([op.operationId, expected]);
    }
    expect(Object.keys(doc.components.parameters)).toEqual(['RequestId', 'GeoCountry']);
    expect(doc.components.parameters.GeoCountry).toMatchObject({ name: 'CF-IPCountry', in: 'header' });
  });

  it('lets each example parse with the schema it illustrates', () => {
    for (const route of API_ROUTES) {
      for (const [name, ex] of Object.entries(route.request.examples ?? {})) {
        expect([route.id, name, route.request.body?.safeParse(ex.value).success]).toEqual([route.id, name, true]);
      }
      for (const spec of Object.values(route.responses)) {
        for (const [name, ex] of Object.entries(spec?.examples ?? {})) {
          expect([route.id, name, spec?.schema.safeParse(ex.value).success]).toEqual([route.id, name, true]);
        }
      }
    }
  });
});
