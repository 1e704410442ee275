import { z } from 'zod';
import { CHAIN_ID } from '../../../wire/src/validation/integer-bounds';
import { envInt, envList, envUrl } from './schema-helpers';
import { DEFAULT_HOST, isLoopbackHost } from './server.config';

/**
 * Sign-in, bearer tokens, API keys and the Explore gate. JWT_SECRET has no default here:
 * shared/identity falls back to a development secret outside production and refuses to start
 * in production without one (the check needs NODE_ENV, which a per-key schema cannot see).
 * The development secret is in the source, so a server reachable from other machines must not
 * use it: see `authKeyProblems`.
 */
/** The edge header the Explore gate reads the client's country from, unless GEOBLOCK_HEADER names another (the OpenAPI document declares it). */
export const DEFAULT_GEOBLOCK_HEADER = 'CF-IPCountry';

export const authEnv = {
  /** HS256 key of session and delegate JWTs; at least 32 characters. Required when NODE_ENV=production. */
  JWT_SECRET: z.string().min(32, 'must be at least 32 characters').max(512).optional(),
  /**
   * HMAC key of the stream tokens a quote create hands out (shared/platform/stream-tokens,
   * signed-stream-tokens.ts); at least 32 characters. Unset: derived from JWT_SECRET.
   */
  STREAM_TOKEN_SECRET: z.string().min(32, 'must be at least 32 characters').max(512).optional(),
  /** The key before the last rotation: tokens it signed still verify (until they expire), none is minted with it. */
  STREAM_TOKEN_SECRET_PREVIOUS: z.string().min(32, 'must be at least 32 characters').max(512).optional(),
  JWT_ISSUER: z.string().min(1).max(128).default('options-rfq'),
  JWT_AUDIENCE: z.string().min(1).max(128).default('options-rfq-api'),
  /** Lifetime of the bearer token answered by POST /api/login. */
  SESSION_TTL_SECONDS: envInt(86400, 60, 30 * 86400),
  /** Host the sign-in message names (EIP-4361 `domain`). */
  SIWE_DOMAIN: z
    .string()
    .regex(/^[A-Za-z0-9.-]+(:[0-9]{1,5})?$/, 'must be a host with an optional port, e.g. app.example.com')
    .default('localhost:3000'),
  SIWE_URI: envUrl('http://localhost:3000', ['http:', 'https:']),
  SIWE_STATEMENT: z
    .string()
    .min(1)
    .max(256)
    .refine((v) => !/[\r\n]/.test(v), 'must be one line')
    .default('Sign in to the Options RFQ service.'),
  /** Chain id the sign-in message carries; contract wallets are verified on this network's RPC. */
  SIWE_CHAIN_ID: envInt(31337, CHAIN_ID.min, CHAIN_ID.max),
  /** A nonce, and the message built from it, expire this long after GET /api/login/nonce. */
  SIWE_NONCE_TTL_SECONDS: envInt(600, 1, 86400),
  /** RPC calls that verify contract-wallet (ERC-1271) signatures give up after this long. */
  SIWE_RPC_TIMEOUT_MS: envInt(5000, 100, 60000),
  /** Longest `expires_in` POST /api/taker/delegate accepts. */
  DELEGATE_MAX_TTL_SECONDS: envInt(3600, 60, 7 * 86400),
  /** Requests per IP per window on GET /api/login/nonce and on POST /api/login (each its own budget). */
  NONCE_RATE_LIMIT: envInt(60, 1, 100000),
  LOGIN_RATE_LIMIT: envInt(30, 1, 100000),
  AUTH_RATE_WINDOW_SECONDS: envInt(60, 1, 86400),
  /**
   * Explore requests per route and window, counted separately per credential: a SIWE session's
   * wallet, a delegate's taker organization and wallet, a delegate's taker key.
   */
  EXPLORE_RATE_LIMIT: envInt(120, 1, 1000000),
  /** Explore requests per route and window from one client IP (IPv6 per /64), counted before any bearer is looked up. */
  EXPLORE_RATE_LIMIT_PER_IP: envInt(120, 1, 1000000),
  EXPLORE_RATE_WINDOW_SECONDS: envInt(60, 1, 86400),
  /**
   * How long the API keeps a taker key's and a network's gate check in memory (docs/SECURITY.md,
   * "The gate's memory"): the bound on honouring a key or a network whose change no notice
   * announced. 0 turns the memory off (every request asks the database).
   */
  GATE_MEMORY_MS: envInt(5000, 0, 60000),
  /** Lifetime of an explore stream token (POST /api/explore/.../stream): joins and live events stop with it. */
  EXPLORE_STREAM_TTL_SECONDS: envInt(3600, 60, 7 * 86400),
  /** Live explore stream tokens (minted, not yet expired) per client IP (IPv6 per /64). */
  EXPLORE_STREAMS_PER_IP: envInt(50, 1, 1000000),
  /** Live explore stream tokens per wallet: a SIWE session's wallet, or a delegate's taker organization and wallet. */
  EXPLORE_STREAMS_PER_WALLET: envInt(20, 1, 1000000),
  /** Live explore stream tokens per taker API key (all delegates it minted together). */
  EXPLORE_STREAMS_PER_TAKER_KEY: envInt(1000, 1, 1000000),
  /** Live explore stream tokens per subject (one CLOB, one loan network). */
  EXPLORE_STREAMS_PER_SUBJECT: envInt(20000, 1, 10000000),
  /** ISO 3166 alpha-2 codes refused by the Explore gate, e.g. `KP,IR`. Empty = no geoblock. */
  GEOBLOCK_COUNTRIES: envList('').pipe(
    z.array(
      z
        .string()
        .regex(/^[A-Za-z]{2}$/, 'each country must be a 2-letter code')
        .transform((c) => c.toUpperCase()),
    ),
  ),
  /** Request header carrying the client's country, set by the edge (Cloudflare sets CF-IPCountry). */
  GEOBLOCK_HEADER: z
    .string()
    .regex(/^[A-Za-z0-9-]{1,64}$/, 'must be a header name')
    .default(DEFAULT_GEOBLOCK_HEADER),
};

/**
 * Rules across keys, read from the raw environment so they are reported together with every
 * per-key problem. Anyone can read the development JWT secret in the source and mint a session
 * or delegate for any wallet, so it is refused unless the server binds to loopback only.
 */
export function authKeyProblems(env: Readonly<Record<string, string>>): { key: string; message: string }[] {
  const host = env.HOST ?? DEFAULT_HOST;
  if (env.JWT_SECRET !== undefined || isLoopbackHost(host)) return [];
  return [
    {
      key: 'JWT_SECRET',
      message: `required when HOST ${host} is not a loopback address: the development secret is public, so anyone could mint sessions (set at least 32 random characters)`,
    },
  ];
}
