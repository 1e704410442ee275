import type { Redis } from '../platform/redis';
import { hashTag, RedisKeys } from '../platform/redis';

/** The live feeds Explore serves; each names its stream-token kind `explore_<feed>` and topic `explore_<feed>_stream:<token>`. */
export type ExploreFeedName = 'clob' | 'loan';

/** A stream token watching a subject, and the block its snapshot reflected: only later events are sent to it. */
export interface Watcher {
  tokenHash: string;
  fromBlock: number;
}

/**
 * Which explore stream tokens watch which subject (a CLOB address; for loans, whatever the loan
 * feed keys by). Streams are named by their token, so the publisher of a chain event cannot know
 * whom to tell: opening a stream records its token's hash here until the token expires, with the
 * block its snapshot reflected, and the publisher sends each later event to every watcher.
 *
 * Two keys per subject: a sorted set of token hashes scored by expiry (expired ones are dropped
 * on read) and a hash of token hash -> snapshot block. Both expire with the last token. Both
 * carry the chain and subject as their hash tag, so a MULTI over them stays in one cluster slot;
 * the subject's outbox and its cursor (feed-outbox.ts) carry the same tag.
 */
export class ExploreWatchers {
  private readonly keys: RedisKeys;

  constructor(
    private readonly redis: Redis,
    prefix: string,
  ) {
    this.keys = new RedisKeys(prefix);
  }

  key(feed: ExploreFeedName, chainId: number, subject: string, part: 'tokens' | 'from' | 'outbox' | 'cursor'): string {
    return this.keys.key('explore', feed, 'watchers', hashTag(`${chainId}:${subject.toLowerCase()}`), part);
  }

  /** Records (or moves) a watcher: the token with sha-256 `tokenHash` follows `subject` from after `fromBlock` until `expiresAtMs`. */
  async watch(feed: ExploreFeedName, chainId: number, subject: string, tokenHash: string, expiresAtMs: number, fromBlock: number): Promise<void> {
    const tokens = this.key(feed, chainId, subject, 'tokens');
    const from = this.key(feed, chainId, subject, 'from');
    const at = Math.ceil(expiresAtMs);
    // Never shorten the keys' life: another watcher may outlive this one.
    await this.redis
      .multi()
      .zadd(tokens, expiresAtMs, tokenHash)
      .hset(from, tokenHash, String(fromBlock))
      .pexpireat(tokens, at, 'GT')
      .pexpireat(tokens, at, 'NX')
      .pexpireat(from, at, 'GT')
      .pexpireat(from, at, 'NX')
      .exec();
  }

  /** Live watchers of `subject`; expired ones are dropped on the way. */
  async list(feed: ExploreFeedName, chainId: number, subject: string, now = Date.now()): Promise<Watcher[]> {
    const tokens = this.key(feed, chainId, subject, 'tokens');
    const from = this.key(feed, chainId, subject, 'from');
    const res = await this.redis
      .multi()
      .zrangebyscore(tokens, '-inf', now)
      .zremrangebyscore(tokens, '-inf', now)
      .zrangebyscore(tokens, now, '+inf')
      .hgetall(from)
      .exec();
    const expired = (res?.[0]?.[1] as string[] | undefined) ?? [];
    const live = (res?.[2]?.[1] as string[] | undefined) ?? [];
    const blocks = (res?.[3]?.[1] as Record<string, string> | undefined) ?? {};
    if (expired.length > 0) await this.redis.hdel(from, ...expired);
    return live.map((tokenHash) => ({ tokenHash, fromBlock: Number(blocks[tokenHash] ?? -1) }));
  }

  /** Moves a watcher's snapshot block (after a fresh snapshot); a watcher that expired meanwhile stays gone. */
  async advance(feed: ExploreFeedName, chainId: number, subject: string, tokenHash: string, fromBlock: number): Promise<void> {
    const from = this.key(feed, chainId, subject, 'from');
    const tokens = this.key(feed, chainId, subject, 'tokens');
    if ((await this.redis.zscore(tokens, tokenHash)) !== null) await this.redis.hset(from, tokenHash, String(fromBlock));
  }
}
