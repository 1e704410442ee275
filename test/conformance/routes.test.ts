import type { Express } from 'express';
import { WHO_NEEDS_WHAT, type ExploreAction, type RouteAction } from '../../api/auth';
import { buildOpenApiDocument, type OpenApiDocument } from '../../api/http/openapi-document';
import { openApiPath } from '../../api/http/path-template';
import type { NamedRouteSpec } from '../../api/http/route-spec';
import { API_ROUTES } from '../../api/routes/route-table';
import { API_VERSION, ROUTE_TAGS } from '../../api/routes/route-tags';
import { documentedExploreRoutes, EXPLORE_ROUTE_DOCS } from '../support/explore-routes';
import { buildApp } from '../support/http';
import { mountedRoutes } from '../support/mounted-routes';
import { createTestEnv, type TestEnv } from '../support/test-env';

/**
 * The spec's route table and its Auth column, copied from the API spec, section "Endpoints"
 * (tables "Sign-in and identity", "Maker organization", "Taker organization", "Quotes",
 * "Orders and exclusive fills", "Pubsub registration", "Public data" and "Explore and loan data").
 * Explore rows carry the spec's challenge action in place of an Auth column ("Explore gate").
 */
const SPEC_ROUTES: { route: string; auth: string }[] = [
  { route: 'GET /api/login/nonce', auth: 'none' },
  { route: 'POST /api/login', auth: 'none' },
  { route: 'GET /api/me', auth: 'bearer' },
  { route: 'GET /api/maker/keys', auth: 'org admin / owner / manager' },
  { route: 'POST /api/maker/keys', auth: 'same, plus wallet signature' },
  { route: 'DELETE /api/maker/keys/{id}', auth: 'same, plus wallet signature' },
  { route: 'PUT /api/maker/organization', auth: 'same, plus wallet signature' },
  { route: 'POST /api/taker/delegate', auth: 'taker API key (bearer secret) or taker admin SIWE + signature' },
  { route: 'POST /api/quote', auth: 'none (bot-challenge token or taker-delegate JWT when enforced)' },
  { route: 'GET /api/quote/{id}', auth: 'stream token as ?stream_token= or header X-Quote-Stream-Token' },
  { route: 'POST /api/quote/{id}', auth: 'maker rights' },
  { route: 'POST /api/quote/{id}/offer', auth: 'maker rights' },
  { route: 'POST /api/orders', auth: 'optional bearer' },
  { route: 'POST /api/exclusive-fill', auth: 'maker rights' },
  { route: 'GET /api/bond-requirements', auth: 'none' },
  { route: 'POST /api/premium/activate', auth: 'n/a' },
  { route: 'POST /api/pubsub/premium', auth: 'maker rights' },
  { route: 'POST /api/pubsub/freemium', auth: 'any authenticated wallet' },
  { route: 'GET /api/networks', auth: 'none' },
  { route: 'GET /api/payment-tokens', auth: 'none' },
  { route: 'GET /api/default-premium-tokens', auth: 'none' },
  { route: 'GET /api/recommended-min-notional', auth: 'none' },
  { route: 'GET /api/landing-page-settings', auth: 'none' },
  { route: 'GET /api/filler-page-settings', auth: 'none' },
  { route: 'GET /api/indexer/status', auth: 'none' },
  { route: 'GET /api/indexer/cores', auth: 'none' },
  { route: 'GET /api/portfolio/{address}', auth: 'none' },
  { route: 'GET /api/explore/clobs/{address}', auth: 'explore-clob' },
  { route: 'POST /api/explore/clobs/{address}/stream', auth: 'explore-clob' },
  { route: 'GET /api/clob/book', auth: 'explore-clob' },
  { route: 'GET /api/clob/{address}/book', auth: 'explore-clob' },
  { route: 'GET /api/clob/{address}/activity', auth: 'explore-clob' },
  { route: 'GET /api/clob/{address}/fills', auth: 'explore-clob' },
  { route: 'GET /api/clob/{address}/summary', auth: 'explore-clob' },
  { route: 'GET /api/explore/loans/summary', auth: 'explore-loan' },
  { route: 'GET /api/explore/loans/at-risk', auth: 'explore-loan' },
  { route: 'GET /api/explore/loans/recent', auth: 'explore-loan' },
  { route: 'GET /api/explore/loans/activity', auth: 'explore-loan' },
  { route: 'GET /api/explore/loans/events', auth: 'explore-loan' },
  { route: 'POST /api/explore/loans/stream', auth: 'explore-loan' },
  { route: 'GET /api/margin/loans', auth: 'explore-loan' },
  { route: 'GET /api/margin/loans/{id}', auth: 'explore-loan' },
  { route: 'GET /api/margin/loans/{id}/collateral', auth: 'explore-loan' },
];

/** Spec routes no issue has built yet, each with the issue that builds it. Remove a row when its route lands. */
const DEFERRED: Record<string, number> = {};

/** Routes beyond the spec's table, each with where it was decided. */
const BEYOND_SPEC: Record<string, string> = {
  'GET /api/orders': 'issue #14: list orders by owner, state and chain with cursor pagination',
  'GET /api/orders/{id}': 'issue #14: read one order and its book order',
  'POST /api/orders/{id}/cancel': 'issue #14: the owner records its intent to cancel',
  'POST /api/maker/keys/{id}/verify': "issue #38: the bot wallet verifies a key added with the spec's body (no address_signature)",
  'GET /api/taker/keys': 'docs/AUTH.md, "Integrator backend: taker keys and delegates" (the spec leaves /api/taker/* paths open)',
  'POST /api/taker/keys': 'docs/AUTH.md, "Integrator backend: taker keys and delegates"',
  'DELETE /api/taker/keys/{id}': 'docs/AUTH.md, "Integrator backend: taker keys and delegates"',
  'GET /api/abis': "issue #27: the reference contracts' ABIs, so an integrator funds its bond and fills an award without this repository",
  'POST /api/quote/{id}/dry-run': 'issue #27: a maker checks an offer or a Dutch bid against every check of its real route, nothing stored (docs/QUOTES.md)',
  'GET /api/openapi.json': 'issue #12, the machine-readable contract',
  'GET /api/asyncapi.json': 'issue #12',
  'GET /docs': 'issue #12',
  'GET /docs/assets/{name}': 'issue #12',
  'GET /healthz': 'liveness probe of every HTTP role',
  'GET /readyz': 'readiness probe of every HTTP role',
  'GET /metrics': 'Prometheus scrape of every HTTP role',
  // The removed route answers 410 to every method, not only the spec's POST.
  'GET /api/premium/activate': 'removed route, 410 for any method',
  'PUT /api/premium/activate': 'removed route, 410 for any method',
  'PATCH /api/premium/activate': 'removed route, 410 for any method',
  'DELETE /api/premium/activate': 'removed route, 410 for any method',
};

/**
 * Mounted paths that are no part of the API and stay out of its documents, each prefix with
 * where it was decided. The app below is built with them mounted, so they are seen here.
 */
const OPERATOR_ONLY: Record<string, string> = {
  '/ops/queues': 'issue #27: the queue dashboard (bull-board), for operators holding OPS_DASHBOARD_TOKEN (docs/OPERATIONS.md)',
};
const operatorOnly = (route: string) => Object.keys(OPERATOR_ONLY).some((prefix) => route.split(' ')[1].startsWith(prefix));

/**
 * An Explore route beyond the spec is decided by its row in its action's Routes table
 * (docs/EXPLORE.md, docs/LOANS.md; test/unit/api/explore-routes-doc.test.ts holds the tables to
 * the gated contracts), so it needs no BEYOND_SPEC entry as well.
 */
const EXPLORE_DOCUMENTED = new Set(
  (Object.keys(EXPLORE_ROUTE_DOCS) as ExploreAction[])
    .flatMap((action) => documentedExploreRoutes(action))
    .map((r) => {
      const [method, path] = r.split(' ');
      return `${method} ${openApiPath(path)}`;
    }),
);

/** Which rows of WHO_NEEDS_WHAT (or the stream token) each Auth value of the spec's table may be built with. */
const SPEC_AUTH: Record<string, (RouteAction | 'stream_token')[]> = {
  none: ['read_public', 'sign_in'],
  'n/a': ['read_public'],
  bearer: ['session'],
  'org admin / owner / manager': ['manage_maker_keys'],
  'same, plus wallet signature': ['manage_maker_keys'],
  'taker API key (bearer secret) or taker admin SIWE + signature': ['mint_delegate'],
  'none (bot-challenge token or taker-delegate JWT when enforced)': ['create_quote'],
  'stream token as ?stream_token= or header X-Quote-Stream-Token': ['stream_token'],
  'maker rights': ['post_maker_offer', 'register_premium_pubsub', 'exclusive_fill'],
  'any authenticated wallet': ['register_freemium_pubsub'],
  'optional bearer': ['create_order'],
  'explore-clob': ['explore'],
  'explore-loan': ['explore'],
};

const ALL_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

const authOf = (c: NamedRouteSpec): RouteAction | 'stream_token' => ('streamToken' in c.auth ? 'stream_token' : c.auth.action);

describe('spec route table, OpenAPI document and mounted routes agree', () => {
  let env: TestEnv;
  let app: Express;
  let doc: OpenApiDocument;
  let documented: Set<string>;
  let mounted: Set<string>;

  beforeAll(async () => {
    env = await createTestEnv({ OPS_DASHBOARD_TOKEN: 'operator-token-of-the-conformance-test-0123' });
    app = buildApp(env).app;
    doc = buildOpenApiDocument(API_ROUTES, ROUTE_TAGS, API_VERSION);
    documented = new Set(Object.entries(doc.paths).flatMap(([path, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`)));
    mounted = new Set(
      mountedRoutes(app).flatMap((r) => (r.method === 'all' ? ALL_METHODS : [r.method.toUpperCase()]).map((m) => `${m} ${openApiPath(r.path)}`)),
    );
  });
  afterAll(() => env.close());

  it('documents every mounted route but the operator-only ones, and mounts every documented one', () => {
    expect({ mountedButUndocumented: [...mounted].filter((r) => !documented.has(r) && !operatorOnly(r)) }).toEqual({ mountedButUndocumented: [] });
    expect({ documentedButNotMounted: [...documented].filter((r) => !mounted.has(r)) }).toEqual({ documentedButNotMounted: [] });
    expect(mounted.size).toBeGreaterThan(25);
  });

  it('mounts each operator-only path, and documents none of it', () => {
    for (const prefix of Object.keys(OPERATOR_ONLY)) expect([...mounted].filter((r) => r.split(' ')[1].startsWith(prefix)).length).toBeGreaterThan(0);
    expect([...documented].filter(operatorOnly)).toEqual([]);
  });

  it('serves every spec route, unless an issue has declared it deferred', () => {
    const missing = SPEC_ROUTES.map((r) => r.route).filter((r) => !documented.has(r) && DEFERRED[r] === undefined);
    expect({ specRoutesMissing: missing }).toEqual({ specRoutesMissing: [] });
  });

  it('keeps no deferral for a route that has been built, and defers only spec routes', () => {
    expect({ builtButStillDeferred: Object.keys(DEFERRED).filter((r) => documented.has(r)) }).toEqual({ builtButStillDeferred: [] });
    const spec = new Set(SPEC_ROUTES.map((r) => r.route));
    expect(Object.keys(DEFERRED).filter((r) => !spec.has(r))).toEqual([]);
    // Every spec route is built: nothing is deferred any more.
    expect(DEFERRED).toEqual({});
  });

  it('serves nothing beyond the spec that is not listed with its reason', () => {
    const spec = new Set(SPEC_ROUTES.map((r) => r.route));
    expect({ unlisted: [...documented].filter((r) => !spec.has(r) && !BEYOND_SPEC[r] && !EXPLORE_DOCUMENTED.has(r)) }).toEqual({ unlisted: [] });
    expect({ listedButGone: Object.keys(BEYOND_SPEC).filter((r) => !documented.has(r)) }).toEqual({ listedButGone: [] });
  });

  it('builds each spec route with the auth its row names', () => {
    const wrong: string[] = [];
    for (const { route, auth } of SPEC_ROUTES) {
      const contract = API_ROUTES.find((c) =>
        (c.method === 'all' ? ALL_METHODS : [c.method.toUpperCase()]).some((m) => `${m} ${openApiPath(c.path)}` === route),
      );
      if (!contract) continue;
      const allowed = SPEC_AUTH[auth];
      if (!allowed) wrong.push(`${route}: spec auth "${auth}" has no mapping`);
      else if (!allowed.includes(authOf(contract))) wrong.push(`${route}: built with ${authOf(contract)}, spec says "${auth}"`);
    }
    expect(wrong).toEqual([]);
    // Every row the table maps to exists in WHO_NEEDS_WHAT.
    const rows = new Set<string>([...Object.keys(WHO_NEEDS_WHAT), 'stream_token']);
    expect(
      Object.values(SPEC_AUTH)
        .flat()
        .filter((a) => !rows.has(a)),
    ).toEqual([]);
  });
});
