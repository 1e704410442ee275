/**
 * Every error a route can answer, as `{status, code}` with one real text as its example. A route's
 * spec lists its own cases; its auth rule and the platform (body parser, write limits,
 * unknown errors) add theirs. The OpenAPI document shows them as examples of each status, and
 * the API tests refuse an error answer whose code the route did not declare for that status.
 */
export interface ErrorCase {
  status: number;
  code: string;
  /** A text the service answers, verbatim where the spec fixes it. */
  example: string;
}

import { PARSER_ANSWERS } from '../../shared/platform/http/parser-errors';

export { errorBodySchema, type ErrorBody } from '../../wire/src/errors/error-body';

const e = (status: number, code: string, example: string): ErrorCase => ({ status, code, example });

const parser = (a: (typeof PARSER_ANSWERS)[keyof typeof PARSER_ANSWERS]): ErrorCase => e(a.status, a.code, a.message);

/** Cases of the platform: answered before or around any route's own logic. */
export const PLATFORM_ERRORS = {
  /** Node's HTTP parser refused the request before any route saw it (every route, any path). */
  malformedRequest: parser(PARSER_ANSWERS.malformed),
  requestTimeout: parser(PARSER_ANSWERS.requestTimeout),
  headersTooLarge: parser(PARSER_ANSWERS.headersTooLarge),
  invalidJson: e(400, 'invalid_json', 'invalid json'),
  requestAborted: e(400, 'request_aborted', 'request aborted'),
  invalidBodyEncoding: e(400, 'invalid_body_encoding', 'request body does not decode with its Content-Encoding'),
  invalidPath: e(400, 'invalid_path', 'the path has malformed percent-encoding'),
  payloadTooLarge: e(413, 'payload_too_large', 'request body larger than 262144 bytes'),
  unsupportedEncoding: e(415, 'unsupported_encoding', 'unsupported content encoding or charset'),
  rateLimited: e(429, 'rate_limited', 'too many requests'),
  rateLimiterUnavailable: e(503, 'rate_limiter_unavailable', 'rate limiter unavailable'),
  databaseUnavailable: e(503, 'database_unavailable', 'temporarily unavailable: the database cannot be reached, retry shortly'),
  redisUnavailable: e(503, 'redis_unavailable', 'temporarily unavailable: Redis cannot be reached, retry shortly'),
  internal: e(500, 'internal_error', 'internal error'),
  routeNotFound: e(404, 'route_not_found', 'no route GET /api/nope'),
} as const satisfies Record<string, ErrorCase>;

/** Cases of the credentials (see docs/AUTH.md), listed by the auth rules that answer them. */
export const AUTH_ERRORS = {
  siweRequired: e(401, 'siwe_required', 'SIWE bearer required: sign in with GET /api/login/nonce and POST /api/login'),
  walletRequired: e(401, 'wallet_required', 'an authenticated wallet is required: a SIWE bearer, a taker delegate or a maker API key'),
  invalidBearer: e(401, 'invalid_bearer', 'invalid, expired or revoked bearer token'),
  takerKeyNotBearer: e(
    401,
    'taker_key_not_a_bearer',
    'a raw taker API key is a bearer only for POST /api/taker/delegate: mint a delegate there and send the delegate JWT as the bearer',
  ),
  walletSessionRequired: e(401, 'wallet_session_required', "the wallet's own credential is required: its SIWE session, or a maker API key of that bot wallet"),
  walletSessionForbidden: e(
    403,
    'wallet_session_required',
    "the wallet's own credential is required: its SIWE session, or a maker API key of that bot wallet; a taker delegate does not speak for the wallet here",
  ),
  makerRightsMissing: e(401, 'maker_rights_required', 'maker rights required: a maker API key, or the SIWE bearer of a maker organization member'),
  makerRightsForbidden: e(403, 'maker_rights_required', 'maker rights required: a maker API key, or the SIWE bearer of a maker organization member'),
  takerAuthRequired: e(401, 'taker_auth_required', 'a taker API key, or the taker admin SIWE bearer with a signed statement, is required'),
  notMakerMember: e(403, 'not_maker_member', '0x70997970C51812dc3A010C7d01b50e0d17dc79C8 is not a member of a maker organization'),
  notTakerMember: e(403, 'not_taker_member', '0x70997970C51812dc3A010C7d01b50e0d17dc79C8 is not a member of a taker organization'),
  roleForbidden: e(403, 'role_forbidden', 'role member may not manage the maker organization; admin, owner or manager required'),
  challengeRequired: e(403, 'challenge_required', 'challenge verification required'),
  exploreAuthRequired: e(401, 'explore_auth_required', 'siwe or taker delegate required'),
  delegateKeyRequired: e(401, 'delegate_key_required', 'taker API key delegate required'),
  geoblocked: e(403, 'geoblocked', 'explore is not available in your region'),
  originRequired: e(403, 'origin_required', 'origin header required'),
  originNotAllowed: e(403, 'origin_not_allowed', 'origin not allowed'),
  streamTokenRequired: e(401, 'stream_token_required', 'stream token required: pass ?stream_token= or X-Quote-Stream-Token'),
  invalidStreamToken: e(401, 'invalid_stream_token', 'invalid stream token for this quote'),
} as const satisfies Record<string, ErrorCase>;

/** A 400 naming each bad field; every route that parses input can answer it. */
export const VALIDATION_FAILED = e(400, 'validation_failed', 'invalid request: chain_id: must be a chain id: an integer from 1 to 2147483647');

/** Declares a route-specific case. */
export const errorCase = e;

/** The fill bond check (shared/bonds) of exclusive fills and Dutch bids. */
export const FILL_BOND_ERRORS = [
  e(
    403,
    'insufficient_fill_bond',
    'insufficient fill bond: USDC bond 999 is below the fill bond minimum 1000; deposit into the BondVault and retry once indexed',
  ),
  e(
    403,
    'bond_requirement_missing',
    'premium token MEME (0x5FC8d32690cc91D4c39d9d3abcBD16989F875707) has no fill bond requirement: the operator must set bond_requirements for it (an explicit "0" to require no bond)',
  ),
];
