import type { Redis } from '../platform/redis';
import { hashTag, RedisKeys } from '../platform/redis';

/** The live feeds Explore serves; each names its stream-token kind `explore_<feed>` and topic `explore_<feed>_stream:<token>`. */
export type ExploreFeedName = 'clob' | 'loan';

/**
 * Which explore stream tokens watch which subject (a CLOB address; for loans, whatever the loan
 * feed keys by), so that the indexer knows whether an append needs a fan-out and the fan-out
 * whether anyone will hear it. Opening a stream records its token's hash here until the token
 * expires.
 *
 * One key per subject: a sorted set of token hashes scored by expiry (expired ones are dropped
 * on read), expiring with the last token. It carries the chain and subject as its hash tag, as
 * do the subject's outbox, cursor and floor (feed-outbox.ts, explore-streams.ts), so a script
 * over them stays in one cluster slot.
 */
export class ExploreWatchers {
  private readonly keys: RedisKeys;

  constructor(
    private readonly redis: Redis,
    prefix: string,
  ) {
    this.keys = new RedisKeys(prefix);
  }

  key(feed: ExploreFeedName, chainId: number, subject: string, part: 'tokens' | 'outbox' | 'cursor' | 'floor' | 'pending'): string {
    return this.keys.key('explore', feed, 'watchers', hashTag(`${chainId}:${subject.toLowerCase()}`), part);
  }

  /** Records a watcher: the token with sha-256 `tokenHash` follows `subject` until `expiresAtMs`. */
  async watch(feed: ExploreFeedName, chainId: number, subject: string, tokenHash: string, expiresAtMs: number): Promise<void> {
    const tokens = this.key(feed, chainId, subject, 'tokens');
    const at = Math.ceil(expiresAtMs);
    // Never shorten the key's life: another watcher may outlive this one.
    await this.redis.multi().zadd(tokens, expiresAtMs, tokenHash).pexpireat(tokens, at, 'GT').pexpireat(tokens, at, 'NX').exec();
  }

  /** How many live watchers `subject` has; expired ones are dropped on the way. */
  async count(feed: ExploreFeedName, chainId: number, subject: string, now = Date.now()): Promise<number> {
    const tokens = this.key(feed, chainId, subject, 'tokens');
    const res = await this.redis.multi().zremrangebyscore(tokens, '-inf', now).zcard(tokens).exec();
    return Number(res?.[1]?.[1] ?? 0);
  }
}
