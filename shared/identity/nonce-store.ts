import type { Redis } from '../platform/redis';
import { hashTag, luaScript, RedisKeys } from '../platform/redis';

/** The nonce response of GET /api/login/nonce; every field must reappear in the signed message. */
export interface IssuedNonce {
  nonce: string;
  domain: string;
  uri: string;
  chain_id: number;
  statement: string;
  version: string;
  issued_at: string;
  expiration_time: string;
}

/** Deletes the nonce and leaves a "used" marker for the rest of its life, atomically (shared/platform/redis/lua/nonce-consume-2.lua). */
const CONSUME = luaScript('nonce-consume');

/**
 * Sign-in nonces in Redis, each living until its message's expiration time. A used nonce
 * leaves a marker so a replay is told "already used" rather than "unknown".
 */
export class NonceStore {
  private readonly keys: RedisKeys;

  constructor(
    private readonly redis: Redis,
    prefix: string,
  ) {
    this.keys = new RedisKeys(prefix);
  }

  async save(n: IssuedNonce): Promise<void> {
    await this.redis.set(this.nonceKey(n.nonce), JSON.stringify(n), 'PX', this.ttlMs(n));
  }

  /** `siwe:nonce:{<nonce>}` and `siwe:used:{<nonce>}`: one cluster slot, as MGET and CONSUME read both. */
  nonceKey(nonce: string): string {
    return this.keys.key('siwe', 'nonce', hashTag(nonce));
  }

  usedKey(nonce: string): string {
    return this.keys.key('siwe', 'used', hashTag(nonce));
  }

  /** The stored nonce, `'used'` once consumed, or null when unknown or expired. */
  async find(nonce: string): Promise<IssuedNonce | 'used' | null> {
    const [raw, used] = await this.redis.mget(this.nonceKey(nonce), this.usedKey(nonce));
    if (raw) return JSON.parse(raw) as IssuedNonce;
    return used ? 'used' : null;
  }

  /** True for the one caller that consumes the nonce; false when someone already did. */
  async consume(n: IssuedNonce): Promise<boolean> {
    const done = await CONSUME.run(this.redis, [this.nonceKey(n.nonce), this.usedKey(n.nonce)], [this.ttlMs(n)]);
    return done === 1;
  }

  private ttlMs(n: IssuedNonce): number {
    return Math.max(1, Date.parse(n.expiration_time) - Date.now());
  }
}
