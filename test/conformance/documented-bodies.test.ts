import { buildOpenApiDocument, type OpenApiDocument } from '../../api/http/openapi-document';
import { API_ROUTES } from '../../api/routes/route-table';
import { API_VERSION, ROUTE_TAGS } from '../../api/routes/route-tags';
import { BUTTERFLY_EXAMPLE, PACKAGE_OFFER_EXAMPLE } from '../../api/routes/quote.http';
import { ValidationError } from '../../shared/platform/errors';
import { parseOrThrow } from '../../shared/platform/validation';
import { dutchBidBody } from '../../wire/src/quote-answers';
import { zeroAddress } from 'viem';
import { direction, directionsHash } from '../../shared/protocol';
import { dutchQuoteRequestDocument, parseDutchQuoteRequest } from '../../shared/dutch';
import { offerRequestDocument, quoteRequestDocument } from '../../shared/quotes';
import { parseOfferRequest } from '../../shared/quotes/offer-request';
import { parseQuoteRequest } from '../../shared/quotes/quote-request';

/*
 * The request bodies the service parses itself (`bodyCheck: 'service'`) are documented by the
 * service's own parsers. These tests hold the document and the parser to each other: every
 * field says what it takes, and a value outside what the document allows is refused by the
 * parser, naming that very field.
 */

type Json = Record<string, any>;

const doc: OpenApiDocument = buildOpenApiDocument(API_ROUTES, ROUTE_TAGS, API_VERSION);
const NOW = Math.floor(Date.now() / 1000);

/** A schema, or the component it refers to (a body two routes share is documented once). */
const resolved = (schema: Json): Json => (schema.$ref ? (doc.components as Json).schemas[schema.$ref.split('/').pop()] : schema);

/** The documented body of a route, or its `member`-th alternative when it is a union. */
function bodySchema(path: string, method: string, member?: number): Json {
  const op = (doc.paths as Json)[path][method];
  const body = resolved(op.requestBody.content['application/json'].schema as Json);
  return member === undefined ? body : resolved(body.anyOf[member]);
}

/** A Dutch create the schema accepts: one leg, the taker buying, the premium rising toward the maker. */
const LEG = BUTTERFLY_EXAMPLE.intents[0]!;
const DUTCH_EXAMPLE = {
  chain_id: 31337,
  taker_address: BUTTERFLY_EXAMPLE.taker_address,
  offer_formats: 'dutch_only',
  directions: [direction('b_is_buy', 0)],
  expires_in: 60,
  compete_ms: 1000,
  exclusive_ms: 2000,
  taker_signature: `0x${'11'.repeat(64)}1b`,
  dutch_request: {
    intents: [LEG],
    tokens: [{ token0: PACKAGE_OFFER_EXAMPLE.maker, token1: PACKAGE_OFFER_EXAMPLE.premium_token, premium_token: PACKAGE_OFFER_EXAMPLE.premium_token }],
    dutch_premium: {
      token: PACKAGE_OFFER_EXAMPLE.premium_token,
      maker_pays_taker: false,
      start_premium: '100000000',
      end_premium: '200000000',
      decay_rate: '1000',
      auction_start: NOW,
    },
    auction_end: NOW + 600,
    maker_address_hash: directionsHash([direction('b_is_buy', 0)]),
    taker_nonce: '7',
    required_authority: zeroAddress,
    required_dutch_authority: PACKAGE_OFFER_EXAMPLE.maker,
    referrer: zeroAddress,
  },
};
/** A Dutch bid naming its filler, so every field is exercised. */
const BID_EXAMPLE = { buy_override_bps: 25, sell_override_bps: 10, filler: PACKAGE_OFFER_EXAMPLE.maker };
const DUTCH_LIMITS = { max_exclusive_ms: 30_000, max_auction_seconds: 3_600, default_compete_ms: 2_000, default_exclusive_ms: 5_000 };

/** Every leaf property of a JSON Schema object, with its dotted path (arrays: their first item). */
function leaves(schema: Json, path: (string | number)[] = []): [(string | number)[], Json][] {
  if (schema.type === 'object' && schema.properties) {
    return Object.entries(schema.properties as Record<string, Json>).flatMap(([k, s]) => leaves(s, [...path, k]));
  }
  if (schema.type === 'array' && schema.items) return [[path, schema], ...leaves(schema.items as Json, [...path, 0])];
  return [[path, schema]];
}

/** A value the document forbids at a leaf, or undefined when its schema allows anything the parser could refuse. */
function violating(s: Json, current: unknown): unknown {
  if (s.type === 'array' && typeof s.maxItems === 'number') return Array.from({ length: s.maxItems + 1 }, () => (current as unknown[])[0]);
  if (s.type === 'integer' && typeof s.maximum === 'number') return s.maximum + 1;
  if (s.anyOf) return { not: 'any of these' };
  if (s.enum || s.const !== undefined) return '__not_listed__';
  if (s.type === 'string' && s.pattern) return 'not-matching !';
  if (s.type === 'boolean') return 'true';
  if (s.type === 'null') return {};
  return undefined;
}

const setAt = (body: unknown, path: (string | number)[], value: unknown): unknown => {
  const copy = structuredClone(body) as Json;
  let at: Json = copy;
  for (const k of path.slice(0, -1)) at = at[k];
  at[path[path.length - 1]!] = value;
  return copy;
};

const fieldOf = (path: (string | number)[]) => path.reduce<string>((s, k) => (typeof k === 'number' ? `${s}[${k}]` : s ? `${s}.${k}` : k), '');

function refusedFields(parse: () => unknown): string[] {
  try {
    parse();
  } catch (err) {
    if (err instanceof ValidationError) return (err.details ?? []).map((d) => d.path);
    throw err;
  }
  return [];
}

describe.each([
  {
    route: 'POST /api/quote (standard)',
    path: '/api/quote',
    member: 0,
    document: quoteRequestDocument,
    example: BUTTERFLY_EXAMPLE,
    parse: (b: unknown) => parseQuoteRequest(b, { now: NOW, maxExpiresIn: 86_400 }),
  },
  {
    route: 'POST /api/quote (Dutch)',
    path: '/api/quote',
    member: 1,
    document: dutchQuoteRequestDocument,
    example: DUTCH_EXAMPLE,
    parse: (b: unknown) => parseDutchQuoteRequest(b, { now: NOW, maxExpiresIn: 86_400, dutch: DUTCH_LIMITS }),
  },
  {
    route: 'POST /api/quote/:id',
    path: '/api/quote/{id}',
    member: undefined,
    document: offerRequestDocument,
    example: PACKAGE_OFFER_EXAMPLE,
    parse: (b: unknown) => parseOfferRequest(b, NOW),
  },
  {
    route: 'POST /api/quote/:id/offer',
    path: '/api/quote/{id}/offer',
    member: undefined,
    document: dutchBidBody,
    example: BID_EXAMPLE,
    parse: (b: unknown) => parseOrThrow(dutchBidBody, b),
  },
  {
    route: 'POST /api/quote/:id/dry-run (package offer)',
    path: '/api/quote/{id}/dry-run',
    member: 0,
    document: offerRequestDocument,
    example: PACKAGE_OFFER_EXAMPLE,
    parse: (b: unknown) => parseOfferRequest(b, NOW),
  },
  {
    route: 'POST /api/quote/:id/dry-run (Dutch bid)',
    path: '/api/quote/{id}/dry-run',
    member: 1,
    document: dutchBidBody,
    example: BID_EXAMPLE,
    parse: (b: unknown) => parseOrThrow(dutchBidBody, b),
  },
])('$route body', ({ path, member, document, example, parse }) => {
  const schema = bodySchema(path, 'post', member);

  it('is documented by the very parser the service runs', () => {
    const route = API_ROUTES.find((r) => r.path === path.replace('{id}', ':id') && r.method === 'post');
    const body = route?.request.body;
    // A union documents each alternative by its own parser.
    expect(member === undefined ? body : (body as unknown as { options: unknown[] }).options[member]).toBe(document);
    expect(route?.request.bodyCheck).toBe('service');
  });

  it('says of every field what it takes, and refuses unknown fields', () => {
    const vague = leaves(schema)
      // A field kept for compatibility and ignored says so with `deprecated` instead of a type.
      .filter(([, s]) => !s.type && !s.enum && !s.anyOf && s.const === undefined && s.deprecated !== true)
      .map(([p]) => fieldOf(p));
    expect(vague).toEqual([]);
    expect(schema.additionalProperties).toBe(false);
    for (const [p, s] of leaves(schema)) expect([fieldOf(p), typeof s.description]).toEqual([fieldOf(p), 'string']);
  });

  it('holds its example, which the parser accepts', () => {
    expect(() => parse(example)).not.toThrow();
    expect(document.safeParse(example).success).toBe(true);
  });

  it('lists as required exactly the fields the parser cannot do without', () => {
    const missing = Object.keys(schema.properties).filter((k) => {
      const { [k]: _gone, ...rest } = example as Json;
      return refusedFields(() => parse(rest)).includes(k);
    });
    expect(missing.sort()).toEqual([...(schema.required as string[])].sort());
  });

  it('has the parser refuse, at that field, every value the document forbids', () => {
    const checked: string[] = [];
    for (const [p, s] of leaves(schema)) {
      const current = p.reduce<any>((v, k) => v?.[k], example);
      if (current === undefined) continue;
      const bad = violating(s, current);
      if (bad === undefined) continue;
      checked.push(fieldOf(p));
      expect([fieldOf(p), refusedFields(() => parse(setAt(example, p, bad)))]).toEqual([fieldOf(p), expect.arrayContaining([fieldOf(p)])]);
    }
    // Every field present in the example was exercised.
    expect(checked.length).toBeGreaterThanOrEqual(Object.keys(example).length);
  });
});
