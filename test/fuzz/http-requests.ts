import fc from 'fast-check';
import { routeKey, type MountedRoute } from '../support/mounted-routes';
import type { FuzzMaterial } from './http-world';
import { CURSOR_EDGES, cursorValue, encode, headerText, jsonText, junk, mutate, NUMBER_EDGES, text, urlPart } from './http-values';

/** One generated request, ready for the wire. */
export interface FuzzRequest {
  /** The mounted route it was generated for (`POST /api/quote`), or `unknown`. */
  route: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
}

/** What to generate for one route beyond the generic: valid-shaped bodies, query keys, path params. */
interface RouteShape {
  body?: unknown;
  /** Whole bodies sent as they are, besides mutations of `body` (e.g. past a bound). */
  variants?: unknown[];
  query?: Record<string, fc.Arbitrary<string>>;
  /** Credentials that get past this route's auth, so most requests reach its validation. */
  auth?: Bearer[];
}

type Bearer = keyof FuzzMaterial['bearers'];

const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=utf-16',
  'application/json; charset=nope',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=zz',
  'application/merge-patch+json',
  'garbage',
];

const ENCODINGS = ['gzip', 'deflate', 'br', 'identity', 'x-nope'];

/** Idempotency-Key lengths at the edges: below, at and past the anonymous minimum of 32, and at and past 255. */
const IDEMPOTENCY_KEYS = fc.oneof(
  fc.constantFrom(...[1, 16, 31, 32, 33, 36, 64, 255, 256, 1000].map((n) => 'k'.repeat(n))),
  fc.integer({ min: 8, max: 48 }).chain((n) => fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: n, maxLength: n })),
);

const signature = `0x${'1b'.repeat(65)}`;
const statement = 'Service maker admin action\n\nAction: add_member\nAdmin: 0x0\nMember: 0x0\nOrganization: x\nName: bot\nIssued At: 2020-01-01T00:00:00Z';

/** Valid-shaped bodies and known query keys of the routes the service mounts today. */
function shapes(m: FuzzMaterial): Record<string, RouteShape> {
  const chainIds = fc.constantFrom('31337', '1', '0', '-1', '2147483647', '2147483648', '3000000000', '9007199254740993', '1e3', '');
  const signed = { message: statement, signature };
  return {
    // A standard RFQ, and Dutch requests (a fresh taker's; a taker over DUTCH_TAKER_UNFILLABLE_LIMIT), anonymous or with a delegate.
    'POST /api/quote': { body: m.quote, variants: m.signed.dutchQuotes, auth: ['delegate'] },
    'GET /api/quote/:id': { query: { stream_token: fc.constantFrom(m.streamToken, m.streamToken.slice(1), '') } },
    'POST /api/quote/:id': { body: m.signed.offer, auth: ['maker_key', 'maker_key_unverified'] },
    'POST /api/quote/:id/offer': {
      body: { buy_override_bps: 10, sell_override_bps: 10, filler: m.addresses[1] },
      variants: [{ buy_override_bps: 10, sell_override_bps: 10, filler: m.addresses[2], filler_signature: signature }, ...m.signed.dutchBids],
      auth: ['maker_key', 'maker_admin', 'maker_key_unverified'],
    },
    'POST /api/quote/:id/dry-run': {
      body: m.signed.offer,
      variants: [{ buy_override_bps: 10, sell_override_bps: 10, filler: m.addresses[1] }],
      auth: ['maker_key', 'maker_admin'],
    },
    'GET /api/me': { auth: ['wallet', 'maker_admin'] },
    'GET /api/maker/keys': { auth: ['maker_admin'] },
    'GET /api/taker/keys': { auth: ['taker_admin'] },
    'DELETE /api/taker/keys/:id': { auth: ['taker_admin'] },
    'POST /api/login': {
      body: { message: `localhost:3000 wants you to sign in with your Ethereum account:\n${m.addresses[2]}\n\nNonce: abcdefgh12345678`, signature },
    },
    // The spec's body (no address_signature) makes an unverified key.
    'POST /api/maker/keys': { body: m.signed.addMakerKey, variants: [m.signed.addMakerKeySpec], auth: ['maker_admin'] },
    'DELETE /api/maker/keys/:id': { body: m.signed.removeMakerKey, auth: ['maker_admin'] },
    'POST /api/maker/keys/:id/verify': { body: m.signed.verifyMakerKey, variants: [{ signature }], auth: ['maker_admin', 'maker_key_unverified'] },
    'PUT /api/maker/organization': {
      body: { new_admin: m.addresses[2], ...signed, new_admin_signature: signature },
      variants: [m.signed.transferToOtherBot],
      auth: ['maker_admin', 'maker_admin_b'],
    },
    'POST /api/taker/keys': { body: { name: 'fuzz key' }, auth: ['taker_admin'] },
    'POST /api/taker/delegate': { body: m.signed.delegateAsAdmin, variants: m.signed.delegateWithKey, auth: ['taker_admin', 'taker_key'] },
    'POST /api/pubsub/premium': { body: { chain_id: 31337 }, auth: ['maker_admin', 'maker_key', 'maker_key_unverified'] },
    'POST /api/pubsub/freemium': { body: { chain_id: 31337 }, auth: ['wallet', 'delegate', 'maker_key', 'maker_key_unverified'] },
    'GET /api/indexer/status': { query: { chain_id: chainIds } },
    'GET /api/indexer/cores': { query: { chain_id: chainIds } },
    'GET /api/portfolio/:address': { query: { chain_id: chainIds } },
    'POST /api/orders': { body: m.order, variants: m.farOrders, auth: ['wallet', 'delegate', 'maker_key'] },
    'POST /api/orders/:id/cancel': { auth: ['wallet', 'delegate', 'maker_key', 'maker_key_unverified'] },
    // Over the held order (cancel pending once its owner asked), the unplaced one, and junk.
    'POST /api/exclusive-fill': {
      body: { order_ids: [m.heldOrderId], reward_destination: m.addresses[3] },
      variants: [{ order_ids: [m.orderId], reward_destination: m.addresses[3] }],
      auth: ['maker_key', 'maker_key_unverified', 'maker_admin'],
    },
    'GET /api/orders': {
      query: {
        owner: fc.constantFrom(...m.addresses),
        state: fc.constantFrom('open', 'cancelled', 'done'),
        chain_id: chainIds,
        limit: fc.constantFrom('1', '50', '501', '0'),
        cursor: cursorValue,
      },
    },
    ...exploreShapes(m),
  };
}

/**
 * The Explore and loan routes: their filters and cursors, with the keyed delegate so most
 * requests pass the gate, and chain_id mostly the indexed chain so the cursor reaches the query.
 */
function exploreShapes(m: FuzzMaterial): Record<string, RouteShape> {
  const chain = fc.oneof({ weight: 3, arbitrary: fc.constant('31337') }, { weight: 2, arbitrary: fc.constantFrom(...NUMBER_EDGES) });
  const numbers = fc.constantFrom(...NUMBER_EDGES);
  const address = fc.constantFrom(...m.addresses, m.pair, ...ADDRESS_EDGES);
  const time = fc.constantFrom(...TIME_EDGES);
  const page = { cursor: cursorValue, limit: numbers };
  const auth: Bearer[] = ['delegate'];
  const clobList = { chain_id: chain, option_id: numbers, address, since: time, until: time, ...page };
  const loanList = { chain_id: chain, borrower: address, lender: address, token: address, ...page };
  const stream = { body: { chain_id: 31337 }, query: { chain_id: chain }, auth };
  return {
    'GET /api/explore/clobs/:address': { query: { chain_id: chain }, auth },
    'POST /api/explore/clobs/:address/stream': stream,
    'GET /api/clob/book': {
      query: {
        chain_id: chain,
        token: address,
        premium_token: address,
        option_type: fc.constantFrom(...ENUM_EDGES),
        expiry_timestamp: numbers,
        depth: numbers,
      },
      auth,
    },
    'GET /api/clob/:address/book': { query: { chain_id: chain, option_id: numbers, depth: numbers, include_orders: fc.constantFrom(...ENUM_EDGES) }, auth },
    'GET /api/clob/:address/activity': { query: { ...clobList, type: fc.constantFrom(...ENUM_EDGES) }, auth },
    'GET /api/clob/:address/fills': { query: clobList, auth },
    'GET /api/clob/:address/summary': { query: { chain_id: chain, option_id: numbers, from: time, to: time }, auth },
    'GET /api/explore/loans/summary': { query: { chain_id: chain }, auth },
    'GET /api/explore/loans/at-risk': { query: { chain_id: chain, below: fc.constantFrom(...HEALTH_EDGES), ...page }, auth },
    'GET /api/explore/loans/recent': { query: { chain_id: chain, ...page }, auth },
    'GET /api/explore/loans/activity': { query: { ...loanList, type: fc.constantFrom(...ENUM_EDGES), from: time, to: time }, auth },
    'GET /api/explore/loans/events': { query: { chain_id: chain, type: fc.constantFrom(...ENUM_EDGES), token: address, ...page }, auth },
    'POST /api/explore/loans/stream': stream,
    'GET /api/margin/loans': { query: { ...loanList, state: fc.constantFrom(...ENUM_EDGES) }, auth },
    'GET /api/margin/loans/:id': { auth },
    'GET /api/margin/loans/:id/collateral': { query: page, auth },
  };
}

const ADDRESS_EDGES = ['0x123', `0x${'g'.repeat(40)}`, `0x${'0'.repeat(40)}`, `0x${'F'.repeat(40)}`, '', 'x'.repeat(5000)];
const TIME_EDGES = [
  '2026-01-01T00:00:00Z',
  '2026-01-01',
  '0001-01-01T00:00:00Z',
  '0000-01-01T00:00:00Z',
  '9999-12-31T23:59:59Z',
  '0001-01-01',
  '9999-12-31',
  '+275760-09-13T00:00:00Z',
  '-000001-01-01T00:00:00Z',
  '2026-02-31T00:00:00Z',
  '2026-02-31',
  'yesterday',
  '1700000000',
  '',
];
const ENUM_EDGES = ['open', 'active', 'repaid', 'placed,filled', 'placed,,', 'loan', 'price', 'call', 'true', 'false', 'x', '', 'A'.repeat(5000)];
const HEALTH_EDGES = ['1.1', '1', '0', '-1', '999999.999999999999999999', '1.0000000000000000001', '1e3', '9'.repeat(5000), ''];

/** One list route of the sweep: the query every request keeps, and the values each of its keys is tried with. */
interface SweepRoute {
  method: 'GET' | 'POST';
  path: string;
  base?: string;
  keys: Record<string, string[]>;
}

/**
 * Every list and filter route of Explore, loans and orders, each query key tried with every edge
 * of its kind (numbers past their columns, negative, non-numeric, huge strings; cursors at and
 * past every member's column, malformed and forged), one key at a time on an otherwise valid
 * request, so the value reaches the route's query rather than stopping at another field.
 */
export function listSweep(m: FuzzMaterial): FuzzRequest[] {
  const addresses = [m.addresses[0], m.addresses[0].toLowerCase(), ...ADDRESS_EDGES];
  const clobList = {
    chain_id: NUMBER_EDGES,
    option_id: NUMBER_EDGES,
    address: addresses,
    since: TIME_EDGES,
    until: TIME_EDGES,
    cursor: CURSOR_EDGES,
    limit: NUMBER_EDGES,
  };
  const loanList = { chain_id: NUMBER_EDGES, borrower: addresses, lender: addresses, token: addresses, cursor: CURSOR_EDGES, limit: NUMBER_EDGES };
  const network = 'chain_id=31337';
  const routes: Record<string, SweepRoute> = {
    'GET /api/orders': {
      method: 'GET',
      path: '/api/orders',
      keys: { owner: addresses, state: ENUM_EDGES, chain_id: NUMBER_EDGES, cursor: CURSOR_EDGES, limit: NUMBER_EDGES },
    },
    'GET /api/explore/clobs/:address': { method: 'GET', path: `/api/explore/clobs/${m.pair}`, keys: { chain_id: NUMBER_EDGES } },
    'POST /api/explore/clobs/:address/stream': { method: 'POST', path: `/api/explore/clobs/${m.pair}/stream`, keys: { chain_id: NUMBER_EDGES } },
    'GET /api/clob/book': {
      method: 'GET',
      path: '/api/clob/book',
      base: network,
      keys: {
        chain_id: NUMBER_EDGES,
        token: addresses,
        premium_token: addresses,
        option_type: ENUM_EDGES,
        expiry_timestamp: NUMBER_EDGES,
        depth: NUMBER_EDGES,
      },
    },
    'GET /api/clob/:address/book': {
      method: 'GET',
      path: `/api/clob/${m.pair}/book`,
      keys: { chain_id: NUMBER_EDGES, option_id: NUMBER_EDGES, depth: NUMBER_EDGES, include_orders: ENUM_EDGES },
    },
    'GET /api/clob/:address/activity': { method: 'GET', path: `/api/clob/${m.pair}/activity`, keys: { ...clobList, type: ENUM_EDGES } },
    'GET /api/clob/:address/fills': { method: 'GET', path: `/api/clob/${m.pair}/fills`, keys: clobList },
    'GET /api/clob/:address/summary': {
      method: 'GET',
      path: `/api/clob/${m.pair}/summary`,
      keys: { chain_id: NUMBER_EDGES, option_id: NUMBER_EDGES, from: TIME_EDGES, to: TIME_EDGES },
    },
    'GET /api/explore/loans/summary': { method: 'GET', path: '/api/explore/loans/summary', keys: { chain_id: NUMBER_EDGES } },
    'GET /api/explore/loans/at-risk': {
      method: 'GET',
      path: '/api/explore/loans/at-risk',
      base: network,
      keys: { chain_id: NUMBER_EDGES, below: HEALTH_EDGES, cursor: CURSOR_EDGES, limit: NUMBER_EDGES },
    },
    'GET /api/explore/loans/recent': {
      method: 'GET',
      path: '/api/explore/loans/recent',
      base: network,
      keys: { chain_id: NUMBER_EDGES, cursor: CURSOR_EDGES, limit: NUMBER_EDGES },
    },
    'GET /api/explore/loans/activity': {
      method: 'GET',
      path: '/api/explore/loans/activity',
      base: network,
      keys: { ...loanList, type: ENUM_EDGES, from: TIME_EDGES, to: TIME_EDGES },
    },
    'GET /api/explore/loans/events': {
      method: 'GET',
      path: '/api/explore/loans/events',
      base: network,
      keys: { chain_id: NUMBER_EDGES, type: ENUM_EDGES, token: addresses, cursor: CURSOR_EDGES, limit: NUMBER_EDGES },
    },
    'POST /api/explore/loans/stream': { method: 'POST', path: '/api/explore/loans/stream', keys: { chain_id: NUMBER_EDGES } },
    'GET /api/margin/loans': { method: 'GET', path: '/api/margin/loans', base: network, keys: { ...loanList, state: ENUM_EDGES } },
    'GET /api/margin/loans/:id/collateral': {
      method: 'GET',
      path: `/api/margin/loans/${m.loanId}/collateral`,
      keys: { cursor: CURSOR_EDGES, limit: NUMBER_EDGES },
    },
  };
  const headers = { authorization: `Bearer ${m.bearers.delegate}` };
  const out: FuzzRequest[] = [];
  for (const [route, r] of Object.entries(routes)) {
    for (const [key, values] of Object.entries(r.keys)) {
      // The key once with each value (it replaces the base's own value), and given twice.
      const queries = [...values.map((v) => `${key}=${encode(v)}`), `${key}=1&${key}=2`];
      const base = r.base && !r.base.startsWith(`${key}=`) ? `${r.base}&` : '';
      for (const q of queries) out.push({ route, method: r.method, path: `${r.path}?${base}${q}`, headers });
    }
  }
  return out;
}

/** Values for a path parameter: the real ids the world holds, uuids, and junk. */
function paramValue(route: string, name: string, m: FuzzMaterial): fc.Arbitrary<string> {
  const real: string[] = [];
  if (route.includes('/quote/')) real.push(m.quoteId, m.dutchQuoteId);
  if (route.includes('/orders/')) real.push(m.orderId, m.heldOrderId);
  if (route.includes('/maker/keys/')) real.push(m.spareMakerKeyId, m.unverifiedMakerKeyId);
  if (route.includes('/margin/loans/')) real.push(m.loanId);
  if (route.includes('/taker/keys/')) real.push(m.spareTakerKeyId);
  if (name === 'address') real.push(...m.addresses, m.addresses[0].toLowerCase(), `0x${'0'.repeat(40)}`);
  if (name === 'address' && route.includes('clob')) real.push(m.pair, m.pair, m.pair.toLowerCase());
  const known = real.length > 0 ? [{ weight: 4, arbitrary: fc.constantFrom(...real) }] : [];
  return urlPart(fc.oneof(...known, { weight: 2, arbitrary: fc.uuid() }, { weight: 2, arbitrary: text }));
}

function pathOf(route: MountedRoute, m: FuzzMaterial): fc.Arbitrary<string> {
  const parts = route.path.split('/');
  const segs = parts.map((p) => (p.startsWith(':') ? paramValue(route.path, p.slice(1), m) : fc.constant(p)));
  return fc.tuple(...segs).map((s) => s.join('/'));
}

function queryOf(shape: RouteShape | undefined): fc.Arbitrary<string> {
  const known = Object.entries(shape?.query ?? {}).map(([k, v]) => fc.tuple(fc.constant(k), urlPart(v)));
  const pair = fc.oneof(...known.map((arbitrary) => ({ weight: 4, arbitrary })), {
    weight: 1,
    arbitrary: fc.tuple(urlPart(fc.string({ maxLength: 10 })), urlPart(text)),
  });
  return fc
    .oneof({ weight: 2, arbitrary: fc.constant([] as [string, string][]) }, { weight: 3, arbitrary: fc.array(pair, { minLength: 1, maxLength: 4 }) })
    .map((pairs) => (pairs.length === 0 ? '' : `?${pairs.map(([k, v]) => `${k}=${v}`).join('&')}`));
}

function headersOf(m: FuzzMaterial, hasBody: boolean, preferred: Bearer[] = []): fc.Arbitrary<Record<string, string>> {
  const tokens = Object.values(m.bearers);
  const fitting = preferred.length > 0 ? [{ weight: 12, arbitrary: fc.constantFrom(...preferred.map((b) => `Bearer ${m.bearers[b]}`)) }] : [];
  const auth = fc.oneof(
    ...fitting,
    { weight: 3, arbitrary: fc.constant(undefined) },
    { weight: 5, arbitrary: fc.constantFrom(...tokens).map((t) => `Bearer ${t}`) },
    { weight: 1, arbitrary: fc.constantFrom(...tokens).map((t) => `bearer  ${t} `) },
    { weight: 1, arbitrary: fc.constantFrom(...tokens).map((t) => `Bearer ${t.slice(0, -2)}`) },
    { weight: 2, arbitrary: headerText.map((t) => `Bearer ${t}`) },
    { weight: 1, arbitrary: headerText },
  );
  const sometimes = (v: fc.Arbitrary<string>, absentWeight = 2) =>
    fc.oneof({ weight: absentWeight, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: v });
  const optional = (v: fc.Arbitrary<string>) => sometimes(v);
  return fc
    .record({
      authorization: auth,
      'content-type': hasBody
        ? fc.oneof(
            { weight: 12, arbitrary: fc.constant('application/json') },
            { weight: 4, arbitrary: fc.constantFrom(...CONTENT_TYPES) },
            { weight: 1, arbitrary: fc.constant(undefined) },
          )
        : fc.constant(undefined),
      'content-encoding': hasBody ? sometimes(fc.constantFrom(...ENCODINGS), 15) : fc.constant(undefined),
      'x-request-id': optional(headerText),
      // Around the anonymous minimum (32) and the maximum (255), random hex, uuids and junk.
      'idempotency-key': optional(fc.oneof(headerText, fc.uuid(), IDEMPOTENCY_KEYS)),
      'x-quote-stream-token': optional(fc.oneof(fc.constant(m.streamToken), headerText)),
      'x-challenge-response': optional(headerText),
      origin: optional(fc.oneof(fc.constant('http://localhost:3000'), headerText)),
      'x-forwarded-for': optional(headerText),
    })
    .map((h) => Object.fromEntries(Object.entries(h).filter((e): e is [string, string] => e[1] !== undefined)));
}

function bodyOf(shape: RouteShape | undefined): fc.Arbitrary<Buffer | undefined> {
  const variants = shape?.variants?.length ? [{ weight: 2, arbitrary: fc.constantFrom(...shape.variants) }] : [];
  const value = shape?.body !== undefined ? fc.oneof({ weight: 8, arbitrary: mutate(shape.body) }, ...variants, { weight: 1, arbitrary: junk }) : junk;
  return fc.oneof(
    { weight: 20, arbitrary: jsonText(value).map((t) => (t === undefined ? undefined : Buffer.from(t, 'utf8'))) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b)) },
    { weight: 1, arbitrary: fc.constant(Buffer.from(`"${'x'.repeat(300 * 1024)}"`)) },
  );
}

function methodsOf(route: MountedRoute): string[] {
  return route.method === 'all' ? ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'] : [route.method.toUpperCase()];
}

/** Requests for one mounted route: its own method mostly, sometimes one it does not serve. */
export function requestsFor(route: MountedRoute, m: FuzzMaterial): fc.Arbitrary<FuzzRequest> {
  const shape = shapes(m)[routeKey(route)];
  const sendsBody = route.method !== 'get';
  const method = fc.oneof(
    { weight: 9, arbitrary: fc.constantFrom(...methodsOf(route)) },
    { weight: 1, arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS') },
  );
  return fc.tuple(method, pathOf(route, m), queryOf(shape), fc.boolean()).chain(([verb, path, query, withBody]) => {
    const hasBody = verb !== 'GET' && verb !== 'OPTIONS' ? sendsBody || withBody : withBody && !sendsBody;
    return fc.tuple(headersOf(m, hasBody, shape?.auth), hasBody ? bodyOf(shape) : fc.constant(undefined)).map(([headers, body]) => ({
      route: routeKey(route),
      method: verb,
      path: path + query,
      headers,
      body,
    }));
  });
}

/** Paths nobody mounted, near the real ones. */
export function unknownRequests(m: FuzzMaterial): fc.Arbitrary<FuzzRequest> {
  const path = fc.oneof(
    fc.array(urlPart(text), { minLength: 1, maxLength: 4 }).map((s) => `/api/${s.join('/')}`),
    fc.constantFrom('/api', '/api/', '/API/networks', '//api//networks', '/api/networks/x', '/', '/api/quote/', '/socket', '/favicon.ico'),
  );
  return fc
    .tuple(fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH'), path, headersOf(m, false))
    .map(([method, p, headers]) => ({ route: 'unknown', method, path: p, headers }));
}

/** A corpus request sent as it is, with the answer it must get. */
export interface SeedRequest {
  request: FuzzRequest;
  status: number;
  code?: string;
}

/**
 * Issue #38's bodies and routes, each sent once unmutated in this order before the generated run,
 * so every run reaches their deepest checks whatever the seed: the spec's add-key body and its
 * verification, an unverified key refused, an admin transfer to another organization's bot, Dutch
 * bids with consenting fillers, a taker over DUTCH_TAKER_UNFILLABLE_LIMIT, the strict delegate
 * body, the owner's cancel of an order under a live exclusive fill, and anonymous
 * Idempotency-Keys either side of the minimum.
 */
export function seedCorpus(m: FuzzMaterial): SeedRequest[] {
  const json = { 'content-type': 'application/json' };
  const as = (who: Bearer) => ({ ...json, authorization: `Bearer ${m.bearers[who]}` });
  const post = (route: string, path: string, body: unknown, headers: Record<string, string> = json, method = 'POST'): FuzzRequest => ({
    route,
    method,
    path,
    headers,
    body: Buffer.from(JSON.stringify(body), 'utf8'),
  });
  const anonymousKey = (n: number) => ({ ...json, 'idempotency-key': 'k'.repeat(n) });
  const [freshDutch, blockedDutch] = m.signed.dutchQuotes;
  const [delegate, delegateWithUnknownField] = m.signed.delegateWithKey;
  return [
    { request: post('POST /api/maker/keys', '/api/maker/keys', m.signed.addMakerKeySpec, as('maker_admin')), status: 201 },
    {
      request: post('POST /api/maker/keys/:id/verify', `/api/maker/keys/${m.unverifiedMakerKeyId}/verify`, m.signed.verifyMakerKey, as('maker_admin')),
      status: 200,
    },
    {
      request: post('POST /api/quote/:id/offer', `/api/quote/${m.dutchQuoteId}/offer`, m.signed.dutchBids[0], as('maker_key_unverified')),
      status: 403,
      code: 'maker_key_unverified',
    },
    ...m.signed.dutchBids.map((b) => ({ request: post('POST /api/quote/:id/offer', `/api/quote/${m.dutchQuoteId}/offer`, b, as('maker_key')), status: 201 })),
    {
      request: post('PUT /api/maker/organization', '/api/maker/organization', m.signed.transferToOtherBot, as('maker_admin_b'), 'PUT'),
      status: 409,
      code: 'wallet_backs_other_organization_key',
    },
    { request: post('POST /api/quote', '/api/quote', freshDutch, as('delegate')), status: 201 },
    { request: post('POST /api/quote', '/api/quote', blockedDutch), status: 403, code: 'taker_unfillable_limit' },
    { request: post('POST /api/taker/delegate', '/api/taker/delegate', delegate, as('taker_key')), status: 200 },
    { request: post('POST /api/taker/delegate', '/api/taker/delegate', delegateWithUnknownField, as('taker_key')), status: 400, code: 'validation_failed' },
    { request: post('POST /api/orders/:id/cancel', `/api/orders/${m.heldOrderId}/cancel`, {}, as('wallet')), status: 200 },
    {
      request: post('POST /api/exclusive-fill', '/api/exclusive-fill', { order_ids: [m.heldOrderId], reward_destination: m.addresses[3] }, as('maker_key')),
      status: 409,
      code: 'order_cancel_pending',
    },
    { request: post('POST /api/quote', '/api/quote', m.quote, anonymousKey(31)), status: 400, code: 'validation_failed' },
    { request: post('POST /api/quote', '/api/quote', m.quote, anonymousKey(32)), status: 201 },
    { request: post('POST /api/quote', '/api/quote', m.quote, anonymousKey(32)), status: 201 },
    { request: post('POST /api/quote', '/api/quote', m.quote, anonymousKey(256)), status: 400, code: 'validation_failed' },
  ];
}
