import { getAddress } from 'viem';
import type { Config } from '../config';
import { RedisKeys, type Redis } from '../redis';

export const PUBSUB_TIERS = ['premium', 'freemium'] as const;
export type PubsubTier = (typeof PUBSUB_TIERS)[number];

/**
 * Who registered for which chain's request feed (POST /api/pubsub/premium|freemium). The
 * socket tier reads it on join; workers read it to find the makers to notify.
 *
 * Kept in Redis, not Postgres: every maker bot writes it on start, every join reads it, and
 * losing it costs a bot one re-registration, which it does at start anyway. Per chain and tier
 * one sorted set, member = checksummed wallet, score = when that registration lapses (unix ms);
 * registering again pushes the lapse out by the TTL. A premium registration is never
 * downgraded by a freemium one: the tiers are separate sets.
 */
export class PubsubRegistrations {
  private readonly keys: RedisKeys;
  private readonly ttlMs: number;

  constructor(
    private readonly redis: Redis,
    config: Pick<Config, 'REDIS_PREFIX' | 'PUBSUB_REGISTRATION_TTL_SECONDS'>,
  ) {
    this.keys = new RedisKeys(config.REDIS_PREFIX);
    this.ttlMs = config.PUBSUB_REGISTRATION_TTL_SECONDS * 1000;
  }

  /** Registers (or refreshes) a wallet; returns when the registration lapses (unix ms). */
  async register(chainId: number, address: string, tier: PubsubTier): Promise<number> {
    const key = this.key(chainId, tier);
    const now = Date.now();
    const lapses = now + this.ttlMs;
    await this.redis
      .multi()
      .zadd(key, lapses, getAddress(address))
      .zremrangebyscore(key, '-inf', now)
      .pexpire(key, this.ttlMs)
      .exec();
    return lapses;
  }

  /** The best tier the wallet holds on that chain, or null when it never registered or it lapsed. */
  async tierOf(chainId: number, address: string): Promise<PubsubTier | null> {
    const member = getAddress(address);
    const now = Date.now();
    for (const tier of PUBSUB_TIERS) {
      const lapses = await this.redis.zscore(this.key(chainId, tier), member);
      if (lapses !== null && Number(lapses) > now) return tier;
    }
    return null;
  }

  /** Wallets currently registered on a chain, in one tier or both. */
  async registered(chainId: number, tier?: PubsubTier): Promise<`0x${string}`[]> {
    const now = Date.now();
    const tiers = tier ? [tier] : PUBSUB_TIERS;
    const lists = await Promise.all(tiers.map((t) => this.redis.zrangebyscore(this.key(chainId, t), `(${now}`, '+inf')));
    return [...new Set(lists.flat())] as `0x${string}`[];
  }

  private key(chainId: number, tier: PubsubTier): string {
    return this.keys.key('pubsub', 'reg', chainId, tier);
  }
}
