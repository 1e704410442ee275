import type { Redis } from '../platform/redis';
import { RedisKeys } from '../platform/redis';

/**
 * Which explore stream tokens watch which CLOB. Explore streams are named by a token
 * (`explore_clob_stream:<token>`), so the indexer cannot know from a CLOB event whom to tell:
 * the route that mints an explore stream token records its hash here (until the token
 * expires), and the indexer publishes each live CLOB event to every watcher's topic.
 */
export class ExploreClobWatchers {
  private readonly keys: RedisKeys;

  constructor(
    private readonly redis: Redis,
    prefix: string,
  ) {
    this.keys = new RedisKeys(prefix);
  }

  private key(chainId: number, clob: string): string {
    return this.keys.key('explore', 'clob-watchers', chainId, clob.toLowerCase());
  }

  /** Records that the stream token with sha-256 `tokenHash` watches `clob` until `expiresAtMs`. */
  async add(chainId: number, clob: string, tokenHash: string, expiresAtMs: number): Promise<void> {
    const key = this.key(chainId, clob);
    await this.redis.multi().zadd(key, expiresAtMs, tokenHash).pexpireat(key, Math.ceil(expiresAtMs)).exec();
  }

  /** Token hashes currently watching `clob`; expired ones are dropped on the way. */
  async list(chainId: number, clob: string, now = Date.now()): Promise<string[]> {
    const key = this.key(chainId, clob);
    const [, live] = (await this.redis.multi().zremrangebyscore(key, '-inf', now).zrangebyscore(key, now, '+inf').exec()) ?? [];
    return (live?.[1] as string[] | undefined) ?? [];
  }
}
