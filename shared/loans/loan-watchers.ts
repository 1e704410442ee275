import type { Redis } from '../platform/redis';
import { RedisKeys } from '../platform/redis';

/**
 * Which loan stream tokens watch which network. A loan stream (`explore_loan_stream:<token>`)
 * is named by its token, so the indexer cannot know from a loan event whom to tell: the route
 * that mints a stream records its token's hash here per network (until the token expires), and
 * the indexer publishes each live loan event to every watcher's topic.
 */
export class ExploreLoanWatchers {
  private readonly keys: RedisKeys;

  constructor(
    private readonly redis: Redis,
    prefix: string,
  ) {
    this.keys = new RedisKeys(prefix);
  }

  private key(chainId: number): string {
    return this.keys.key('explore', 'loan-watchers', chainId);
  }

  /** Records that the stream token with sha-256 `tokenHash` watches the loans of `chainId` until `expiresAtMs`. */
  async add(chainId: number, tokenHash: string, expiresAtMs: number): Promise<void> {
    const key = this.key(chainId);
    // The key lives as long as its longest-lived watcher.
    const ttl = await this.redis.pttl(key);
    const multi = this.redis.multi().zadd(key, expiresAtMs, tokenHash);
    if (ttl < 0 || Date.now() + ttl < expiresAtMs) multi.pexpireat(key, Math.ceil(expiresAtMs));
    await multi.exec();
  }

  /** Token hashes currently watching `chainId`; expired ones are dropped on the way. */
  async list(chainId: number, now = Date.now()): Promise<string[]> {
    const key = this.key(chainId);
    const [, live] = (await this.redis.multi().zremrangebyscore(key, '-inf', now).zrangebyscore(key, now, '+inf').exec()) ?? [];
    return (live?.[1] as string[] | undefined) ?? [];
  }
}
