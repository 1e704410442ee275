import { randomUUID } from 'node:crypto';
import { getAddress, isAddress } from 'viem';
import { jwtVerify, SignJWT } from 'jose';
import { z } from 'zod';
import { ConfigError, type Config } from '../platform/config';

/** Used only outside production, so a fresh checkout runs without configuration. */
const DEVELOPMENT_SECRET = 'options-rfq-development-only-jwt-secret-do-not-deploy';

/** The HS256 key; refuses to start in production without a real JWT_SECRET. */
export function jwtKey(config: Config): Uint8Array {
  if (!config.JWT_SECRET && config.NODE_ENV === 'production') {
    throw new ConfigError([{ key: 'JWT_SECRET', message: 'required when NODE_ENV=production (at least 32 characters)' }]);
  }
  return new TextEncoder().encode(config.JWT_SECRET ?? DEVELOPMENT_SECRET);
}

const addressClaim = z
  .string()
  .refine((v) => isAddress(v, { strict: false }))
  .transform((v) => getAddress(v));

const sessionPayload = z.object({ typ: z.literal('siwe'), sub: addressClaim, exp: z.number() });
const delegatePayload = z.object({
  typ: z.literal('delegate'),
  sub: addressClaim,
  exp: z.number(),
  org: z.uuid(),
  key_id: z.uuid().optional(),
});

export type VerifiedToken =
  | { typ: 'siwe'; address: `0x${string}`; expiresAt: number }
  | { typ: 'delegate'; address: `0x${string}`; organizationId: string; keyId: string | null; expiresAt: number };

/**
 * Signs and verifies the two JWTs the service issues. The `typ` claim keeps a delegate from
 * ever passing as a session and the reverse; issuer, audience and algorithm are pinned.
 */
export class TokenIssuer {
  private readonly key: Uint8Array;

  constructor(private readonly config: Config) {
    this.key = jwtKey(config);
  }

  /** A session bearer for a wallet that signed in. */
  async signSession(address: `0x${string}`): Promise<{ token: string; expiresIn: number }> {
    const expiresIn = this.config.SESSION_TTL_SECONDS;
    const token = await this.sign({ typ: 'siwe' }, address, expiresIn);
    return { token, expiresIn };
  }

  /** A delegate for an end-user wallet; `keyId` is set when a taker API key minted it. */
  async signDelegate(d: { address: `0x${string}`; organizationId: string; keyId: string | null; expiresIn: number }): Promise<string> {
    const claims: Record<string, string> = { typ: 'delegate', org: d.organizationId };
    if (d.keyId) claims.key_id = d.keyId;
    return this.sign(claims, d.address, d.expiresIn);
  }

  /** The token's claims, or null when it is malformed, forged, expired or for another audience. */
  async verify(raw: string): Promise<VerifiedToken | null> {
    let payload: unknown;
    try {
      ({ payload } = await jwtVerify(raw, this.key, {
        issuer: this.config.JWT_ISSUER,
        audience: this.config.JWT_AUDIENCE,
        algorithms: ['HS256'],
      }));
    } catch {
      return null;
    }
    const session = sessionPayload.safeParse(payload);
    if (session.success) return { typ: 'siwe', address: session.data.sub, expiresAt: session.data.exp * 1000 };
    const delegate = delegatePayload.safeParse(payload);
    if (delegate.success) {
      const d = delegate.data;
      return { typ: 'delegate', address: d.sub, organizationId: d.org, keyId: d.key_id ?? null, expiresAt: d.exp * 1000 };
    }
    return null;
  }

  private sign(claims: Record<string, string>, subject: string, expiresIn: number): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuer(this.config.JWT_ISSUER)
      .setAudience(this.config.JWT_AUDIENCE)
      .setSubject(subject)
      .setJti(randomUUID())
      .setIssuedAt(now)
      .setExpirationTime(now + expiresIn)
      .sign(this.key);
  }
}
