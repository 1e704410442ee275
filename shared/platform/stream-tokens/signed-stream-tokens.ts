import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import { pooledRandomBytes } from '../secrets';
import { STREAM_KINDS, type StreamKind } from './stream-tokens';

/**
 * Stream tokens that carry their own proof: minting one writes nothing anywhere, and checking one
 * reads nothing but the server's key. Layout (then base64url, 96 characters, inside
 * STREAM_TOKEN_PATTERN):
 *
 *   version (1) | kind (1) | expires at, unix ms (6, big-endian) | subject uuid (16) | nonce (16) | HMAC-SHA256 (32)
 *
 * The HMAC covers every byte before it, under a label, so kind, subject and expiry cannot be
 * changed. The random nonce makes a token underivable even from the key: whoever finds a key
 * can make tokens that pass `open`, but never the one whose sha-256 a quote row stores, which is
 * what a join checks next (revocation by the quote's state, shared/quotes/quote-stream-tokens.ts).
 */
const VERSION = 1;
const HEADER = 1 + 1 + 6 + 16 + 16;
const MAC_BYTES = 32;
const TOKEN_BYTES = HEADER + MAC_BYTES;
/** Base64url length of a signed token: what tells it from a random (Redis-recorded) one without decoding. */
export const SIGNED_TOKEN_LENGTH = Math.ceil((TOKEN_BYTES * 4) / 3);
const LABEL = Buffer.from('options-rfq stream token v1\0', 'utf8');
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** Used only when neither STREAM_TOKEN_SECRET nor JWT_SECRET is set (development: it is public). */
const DEVELOPMENT_STREAM_SECRET = 'options-rfq development stream-token secret (public: never use in production)';

/** What a signed token says, once its HMAC, kind and expiry were checked. */
export interface StreamTokenClaim {
  kind: StreamKind;
  /** The uuid the token was minted for (a quote id). */
  subject: string;
  /** Unix milliseconds. */
  expiresAt: number;
}

export interface StreamTokenKeys {
  /** Mints and verifies. */
  current: Buffer;
  /** Verifies only: the key before a rotation, so tokens already handed out keep working. */
  previous: Buffer | null;
}

/**
 * The HMAC keys from the settings: STREAM_TOKEN_SECRET (and STREAM_TOKEN_SECRET_PREVIOUS while
 * rotating). Unset, the key is derived from JWT_SECRET (required in production), so a deployment
 * that sets only JWT_SECRET still mints tokens every role verifies. Each is stretched through
 * HKDF with its own label, so the JWT key and the stream key are never the same bytes.
 */
export function streamTokenKeys(config: { STREAM_TOKEN_SECRET?: string; STREAM_TOKEN_SECRET_PREVIOUS?: string; JWT_SECRET?: string }): StreamTokenKeys {
  const derive = (secret: string) => Buffer.from(hkdfSync('sha256', secret, 'options-rfq', 'stream-token-hmac', 32));
  const current = config.STREAM_TOKEN_SECRET ?? config.JWT_SECRET ?? DEVELOPMENT_STREAM_SECRET;
  return { current: derive(current), previous: config.STREAM_TOKEN_SECRET_PREVIOUS ? derive(config.STREAM_TOKEN_SECRET_PREVIOUS) : null };
}

function mac(key: Buffer, header: Buffer): Buffer {
  return createHmac('sha256', key).update(LABEL).update(header).digest();
}

export class SignedStreamTokens {
  constructor(
    private readonly keys: StreamTokenKeys,
    private readonly clock: () => number = Date.now,
  ) {}

  /** A token of `kind` for `subject` (a lower-case uuid), valid until `expiresAt` (unix ms). No I/O. */
  mint(kind: StreamKind, subject: string, expiresAt: number): string {
    const k = STREAM_KINDS.indexOf(kind);
    if (k < 0) throw new Error(`unknown stream kind ${String(kind)}`);
    if (!UUID.test(subject)) throw new Error('a signed stream token names a lower-case uuid');
    if (!Number.isSafeInteger(expiresAt) || expiresAt <= 0 || expiresAt >= 2 ** 48) throw new Error(`bad token expiry ${expiresAt}`);
    const out = Buffer.allocUnsafe(TOKEN_BYTES);
    out[0] = VERSION;
    out[1] = k;
    out.writeUIntBE(expiresAt, 2, 6);
    out.write(subject.replace(/-/g, ''), 8, 16, 'hex');
    pooledRandomBytes(16).copy(out, 24);
    mac(this.keys.current, out.subarray(0, HEADER)).copy(out, HEADER);
    return out.toString('base64url');
  }

  /**
   * The claim of a well-formed token of `kind` whose HMAC verifies under the current or the
   * previous key (compared in constant time) and that has not expired; otherwise null.
   */
  open(kind: StreamKind, token: string): StreamTokenClaim | null {
    if (typeof token !== 'string' || token.length !== SIGNED_TOKEN_LENGTH) return null;
    const raw = Buffer.from(token, 'base64url');
    // Decoding forgives characters base64url lacks; the round trip refuses them (and any other spelling of the same bytes).
    if (raw.length !== TOKEN_BYTES || raw.toString('base64url') !== token || raw[0] !== VERSION) return null;
    if (STREAM_KINDS[raw[1]] !== kind) return null;
    const header = raw.subarray(0, HEADER);
    const given = raw.subarray(HEADER);
    const signedBy = (key: Buffer | null) => key !== null && timingSafeEqual(mac(key, header), given);
    if (!signedBy(this.keys.current) && !signedBy(this.keys.previous)) return null;
    const expiresAt = raw.readUIntBE(2, 6);
    if (expiresAt <= this.clock()) return null;
    const hex = raw.toString('hex', 8, 24);
    const subject = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
    return { kind, subject, expiresAt };
  }
}
