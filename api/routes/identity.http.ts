import { loginAnswer, loginNonceAnswer, loginSchema, sessionView } from '../../wire/src/identity.wire';
import { defineRoute } from '../http/route-spec';
import { errorCase, PLATFORM_ERRORS } from '../http/error-cases';

/** Verifying a contract wallet's signature asks its chain (ERC-1271); an unreachable RPC is a 503. */
export const RPC_UNAVAILABLE = errorCase(503, 'rpc_unavailable', 'cannot verify a contract wallet signature: chain 31337 RPC unreachable');

/** The per-IP limits of the sign-in routes (AUTH_RATE_WINDOW_SECONDS). */
const PER_IP_LIMIT = [PLATFORM_ERRORS.rateLimited, PLATFORM_ERRORS.rateLimiterUnavailable];

const SIWE_ERRORS = [
  errorCase(401, 'siwe_invalid_message', 'sign-in message is not a valid EIP-4361 message'),
  errorCase(401, 'siwe_expired', 'sign-in message expired'),
  errorCase(401, 'siwe_not_yet_valid', 'sign-in message is not valid yet (Not Before)'),
  errorCase(401, 'siwe_nonce_unknown', 'unknown sign-in nonce; fetch one from GET /api/login/nonce'),
  errorCase(401, 'siwe_nonce_used', 'sign-in nonce already used; fetch a new one from GET /api/login/nonce'),
  errorCase(401, 'siwe_domain_mismatch', 'sign-in message domain does not match: expected localhost:3000'),
  errorCase(401, 'siwe_field_mismatch', 'sign-in message URI does not match the issued nonce'),
  errorCase(401, 'siwe_bad_signature', 'signature does not match the sign-in message address'),
];

/** Sign-in with Ethereum (EIP-4361) and the session it yields. */
export const identitySpecs = {
  getLoginNonce: defineRoute({
    method: 'get',
    path: '/api/login/nonce',
    summary: 'A sign-in nonce and every field the EIP-4361 message must repeat',
    tags: ['sign-in'],
    auth: { action: 'sign_in' },
    cache: 'no-store',
    request: {},
    responses: {
      200: {
        description: 'Build the EIP-4361 message with every field exactly as issued, sign it, and POST /api/login.',
        schema: loginNonceAnswer,
      },
    },
    errors: PER_IP_LIMIT,
  }),
  login: defineRoute({
    method: 'post',
    path: '/api/login',
    summary: 'Sign in with a signed EIP-4361 message',
    tags: ['sign-in'],
    auth: { action: 'sign_in' },
    cache: 'no-store',
    request: { body: loginSchema },
    responses: {
      200: {
        description: 'A SIWE session bearer.',
        schema: loginAnswer,
      },
    },
    errors: [...SIWE_ERRORS, RPC_UNAVAILABLE, ...PER_IP_LIMIT],
  }),
  getSession: defineRoute({
    method: 'get',
    path: '/api/me',
    summary: 'Who the bearer speaks for',
    description: 'A SIWE session, a maker API key (its bot wallet) or a taker delegate each get their own answer.',
    tags: ['sign-in'],
    auth: { action: 'session' },
    cache: 'no-store',
    request: {},
    responses: { 200: { description: 'The session.', schema: sessionView } },
    errors: [errorCase(401, 'invalid_bearer', 'invalid, expired or revoked bearer token')],
  }),
};
