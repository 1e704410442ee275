import { randomBytes } from 'node:crypto';
import type { Redis } from '../platform/redis';
import { luaScript, RedisKeys } from '../platform/redis';

/** Deletes the lock only if it still holds our token (shared/platform/redis/lua/feed-lock-release-1.lua). */
const RELEASE = luaScript('feed-lock-release');

/**
 * A short Redis lock per explore subject. Opening a stream (snapshot, then register the watcher)
 * and publishing a batch of chain events to watchers take it in turn, so a snapshot is never
 * published between an event's commit and that event's publication with a watcher that would
 * then miss it: with the lock, a watcher sees every event after its snapshot's block, once.
 * The TTL bounds a crashed holder; waiting gives up after `waitMs` and the caller retries.
 */
export class FeedLock {
  private readonly keys: RedisKeys;

  constructor(
    private readonly redis: Redis,
    prefix: string,
    private readonly ttlMs = 10_000,
    private readonly waitMs = 15_000,
  ) {
    this.keys = new RedisKeys(prefix);
  }

  async with<T>(name: string, fn: () => Promise<T>): Promise<T> {
    const key = this.keys.key('explore', 'lock', name);
    const token = randomBytes(16).toString('hex');
    const until = Date.now() + this.waitMs;
    for (let pause = 5; ; pause = Math.min(pause * 2, 100)) {
      if ((await this.redis.set(key, token, 'PX', this.ttlMs, 'NX')) === 'OK') break;
      if (Date.now() > until) throw new Error(`explore feed lock ${name} is busy`);
      await new Promise((r) => setTimeout(r, pause));
    }
    try {
      return await fn();
    } finally {
      await RELEASE.run(this.redis, [key], [token]);
    }
  }
}
