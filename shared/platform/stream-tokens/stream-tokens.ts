import { timingSafeEqual } from 'node:crypto';
import type { Redis } from '../redis';
import { hashTag, publishTo, RedisKeys } from '../redis';
import { hashSecret, pooledRandomBytes } from '../secrets';

/** What a stream token opens: a taker's quote stream, or an explore feed. */
export const STREAM_KINDS = ['rfq', 'explore_clob', 'explore_loan'] as const;
export type StreamKind = (typeof STREAM_KINDS)[number];

/** Whatever the minting route wants to find again (quote id, CLOB address...): flat JSON values. */
export type StreamTokenMeta = Record<string, string | number | boolean | null>;

export interface StreamTokenRecord {
  kind: StreamKind;
  /** Unix milliseconds. */
  expiresAt: number;
  meta: StreamTokenMeta;
}

/** 32 random bytes in base64url: 256 bits, 43 characters. */
const TOKEN_BYTES = 32;
/** What a token can look like; anything else is refused before touching Redis. */
export const STREAM_TOKEN_PATTERN = /^[A-Za-z0-9_-]{16,128}$/;

/** sha-256 of a stream token, lower-case hex: how tokens are stored and how event topics name them. */
export const hashStreamToken = hashSecret;

/**
 * Bearer tokens for private live feeds (`rfq_stream:<token>`, `explore_*_stream:<token>`).
 * Only the sha-256 of a token is stored, under the deployment prefix, with a Redis TTL equal
 * to the token's lifetime; a leaked Redis dump therefore opens no stream. The raw token exists
 * only in the mint response and in the client's hands.
 */
export class StreamTokens {
  private readonly keys: RedisKeys;

  constructor(
    private readonly redis: Redis,
    prefix: string,
  ) {
    this.keys = new RedisKeys(prefix);
  }

  /** Issues a token valid for `ttlSeconds`; returns the raw token (shown once, never stored). */
  async mint(kind: StreamKind, ttlSeconds: number, meta: StreamTokenMeta = {}): Promise<string> {
    if (!STREAM_KINDS.includes(kind)) throw new Error(`unknown stream kind ${String(kind)}`);
    if (!Number.isInteger(ttlSeconds) || ttlSeconds < 1) throw new Error(`stream token ttl must be a positive integer, got ${ttlSeconds}`);
    const token = pooledRandomBytes(TOKEN_BYTES).toString('base64url');
    const hash = hashStreamToken(token);
    const record = { h: hash, e: Date.now() + ttlSeconds * 1000, m: meta };
    await this.redis.set(this.key(kind, hash), JSON.stringify(record), 'EX', ttlSeconds);
    return token;
  }

  /** The token's record when it is well formed, of that kind, and not expired; otherwise null. */
  async verify(kind: StreamKind, token: string): Promise<StreamTokenRecord | null> {
    if (typeof token !== 'string' || !STREAM_TOKEN_PATTERN.test(token) || !STREAM_KINDS.includes(kind)) return null;
    const hash = hashStreamToken(token);
    const raw = await this.redis.get(this.key(kind, hash));
    if (raw === null) return null;
    let rec: { h?: unknown; e?: unknown; m?: unknown };
    try {
      rec = JSON.parse(raw) as typeof rec;
    } catch {
      return null;
    }
    // The key already names the hash; comparing the stored copy too, in constant time, means no
    // code path ever decides on a secret with an early-exit string comparison.
    if (typeof rec.h !== 'string' || rec.h.length !== hash.length) return null;
    if (!timingSafeEqual(Buffer.from(rec.h, 'utf8'), Buffer.from(hash, 'utf8'))) return null;
    if (typeof rec.e !== 'number' || rec.e <= Date.now()) return null;
    return { kind, expiresAt: rec.e, meta: (rec.m ?? {}) as StreamTokenMeta };
  }

  /**
   * Writes a token's record again from what a durable store knows of it (its hash and expiry):
   * after a Redis data loss, a token verified against Postgres is put back, so the publish
   * script ties its topic's life to it again. Does nothing for an expired token.
   */
  async remember(kind: StreamKind, hash: string, expiresAt: number, meta: StreamTokenMeta = {}): Promise<void> {
    const ttlMs = expiresAt - Date.now();
    if (ttlMs <= 0) return;
    await this.redis.set(this.key(kind, hash), JSON.stringify({ h: hash, e: expiresAt, m: meta }), 'PX', ttlMs);
  }

  /**
   * Ends a token before its time (a cancelled quote, say): new joins are refused at once, and
   * socket replicas listening on `revocationChannel` end the channels already joined with it.
   */
  async revoke(kind: StreamKind, token: string): Promise<boolean> {
    if (!STREAM_TOKEN_PATTERN.test(token)) return false;
    const hash = hashStreamToken(token);
    const removed = (await this.redis.del(this.key(kind, hash))) > 0;
    if (removed) await publishTo(this.redis, this.revocationChannel, JSON.stringify({ kind, hash }));
    return removed;
  }

  /** Redis pub/sub channel announcing revoked tokens as JSON `{kind, hash}`. */
  get revocationChannel(): string {
    return this.keys.key('stream-token', 'revoked');
  }

  /**
   * Where a token's record lives; its TTL is the token's remaining life (token topics tie theirs to it).
   * The hash is the key's hash tag, as it is of the token topic's event keys (EventKeys), so the
   * publish script reads the token in the same cluster slot as the topic it writes.
   */
  key(kind: StreamKind, hash: string): string {
    return this.keys.key('stream-token', kind, hashTag(hash));
  }
}
