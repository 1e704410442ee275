import { QUOTE_CHALLENGE_ACTION } from '../auth/delegate-auth';
import { WHO_NEEDS_WHAT, type AuthRule } from '../auth/route-auth';
import { AUTH_ERRORS, PLATFORM_ERRORS, type ErrorCase } from './error-cases';
import type { RouteAuth } from './route-spec';

/**
 * The spec's credentials as OpenAPI security schemes, and what each auth rule of
 * `WHO_NEEDS_WHAT` asks for and answers. `AUTH_RULE_DOCS` is keyed by every rule, so a new
 * rule cannot be mounted without being documented.
 */

export type SecurityScheme =
  | { type: 'http'; scheme: 'bearer'; bearerFormat?: string; description: string }
  | { type: 'apiKey'; in: 'header' | 'query'; name: string; description: string };

export const SECURITY_SCHEMES = {
  siweBearer: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: 'Sign-In with Ethereum session: GET /api/login/nonce, sign the EIP-4361 message, POST /api/login.',
  },
  makerKey: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'mk_<32 hex>_<43 base64url>',
    description: 'Maker organization API key of a bot wallet, issued by POST /api/maker/keys (its secret is shown once).',
  },
  takerKey: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'tk_<32 hex>_<43 base64url>',
    description: 'Taker organization API key, issued by POST /api/taker/keys; long-lived, for backends: mint delegates with it.',
  },
  delegateJwt: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: 'Short-lived taker delegate minted by POST /api/taker/delegate; carries key_id when minted with a taker API key.',
  },
  streamTokenHeader: {
    type: 'apiKey',
    in: 'header',
    name: 'X-Quote-Stream-Token',
    description: 'The stream_token answered by POST /api/quote: polls the quote and joins rfq_stream:<stream_token>.',
  },
  streamTokenQuery: { type: 'apiKey', in: 'query', name: 'stream_token', description: 'The quote stream token, as a query parameter.' },
  exploreOrigin: {
    type: 'apiKey',
    in: 'header',
    name: 'Origin',
    description: 'Explore gate, website path: an Origin on the CORS allowlist, together with a SIWE bearer and the bot challenge.',
  },
  challengeResponse: {
    type: 'apiKey',
    in: 'header',
    name: 'X-Challenge-Response',
    description: "Bot-challenge token for the route's widget action; needed only when the challenge is enforced (see GET /api/landing-page-settings).",
  },
} as const satisfies Record<string, SecurityScheme>;

export type SchemeName = keyof typeof SECURITY_SCHEMES;

/** One way to satisfy a route: every scheme named in one entry together; an empty entry means none needed. */
export type SecurityRequirement = Partial<Record<SchemeName, string[]>>;

interface AuthDoc {
  security: SecurityRequirement[];
  errors: ErrorCase[];
}

const A = AUTH_ERRORS;

export const AUTH_RULE_DOCS = {
  none: { security: [{}], errors: [] },
  siwe: { security: [{ siweBearer: [] }], errors: [A.siweRequired] },
  challenge_or_delegate: { security: [{ challengeResponse: [] }, { delegateJwt: [] }, {}], errors: [A.challengeRequired, A.takerKeyNotBearer] },
  explore_gate: {
    security: [{ siweBearer: [], exploreOrigin: [], challengeResponse: [] }, { delegateJwt: [] }],
    // Every explore route spends from its `:explore` budgets, read or write; a store error while
    // charging them fails closed (api/auth/write-budgets.ts).
    errors: [
      A.exploreAuthRequired,
      A.delegateKeyRequired,
      A.geoblocked,
      A.originRequired,
      A.originNotAllowed,
      A.challengeRequired,
      PLATFORM_ERRORS.rateLimited,
      PLATFORM_ERRORS.rateLimiterUnavailable,
    ],
  },
  maker_rights: { security: [{ makerKey: [] }, { siweBearer: [] }], errors: [A.makerRightsMissing, A.makerRightsForbidden] },
  maker_manager: { security: [{ siweBearer: [] }], errors: [A.siweRequired, A.notMakerMember, A.roleForbidden] },
  taker_manager: { security: [{ siweBearer: [] }], errors: [A.siweRequired, A.notTakerMember, A.roleForbidden] },
  taker_key_or_taker_admin: { security: [{ takerKey: [] }, { siweBearer: [] }], errors: [A.takerAuthRequired, A.notTakerMember, A.roleForbidden] },
  optional_bearer: { security: [{}, { siweBearer: [] }, { delegateJwt: [] }, { makerKey: [] }], errors: [A.invalidBearer, A.takerKeyNotBearer] },
  any_wallet: { security: [{ siweBearer: [] }, { delegateJwt: [] }, { makerKey: [] }], errors: [A.walletRequired] },
  wallet_session: { security: [{ siweBearer: [] }, { makerKey: [] }], errors: [A.walletSessionRequired, A.walletSessionForbidden] },
} as const satisfies Record<AuthRule, AuthDoc>;

const STREAM_TOKEN: AuthDoc = {
  security: [{ streamTokenHeader: [] }, { streamTokenQuery: [] }],
  errors: [A.streamTokenRequired, A.invalidStreamToken],
};

/** What a route's auth asks for and the errors it answers. */
export function authDoc(auth: RouteAuth): AuthDoc {
  if ('streamToken' in auth) return STREAM_TOKEN;
  return AUTH_RULE_DOCS[WHO_NEEDS_WHAT[auth.action]];
}

/**
 * The bot-challenge widget action a route's token must be solved for (docs/AUTH.md, "Bot
 * challenge"), or null when its auth takes no challenge: the Explore routes name theirs, quote
 * creation's rule always checks QUOTE_CHALLENGE_ACTION.
 */
export function challengeActionOf(auth: RouteAuth): string | null {
  if ('streamToken' in auth) return null;
  if (auth.action === 'explore') return auth.challenge;
  return WHO_NEEDS_WHAT[auth.action] === 'challenge_or_delegate' ? QUOTE_CHALLENGE_ACTION : null;
}

/** The sentence the OpenAPI document shows for a route's auth. */
export function authSentence(auth: RouteAuth): string {
  if ('streamToken' in auth) return 'The quote stream token, as header X-Quote-Stream-Token or query stream_token.';
  const rule = WHO_NEEDS_WHAT[auth.action];
  const action = challengeActionOf(auth);
  const challenge = action ? ` Widget action: ${action}.` : '';
  return `Auth: ${auth.action.replace(/_/g, ' ')} (${rule.replace(/_/g, ' ')}).${challenge}`;
}
