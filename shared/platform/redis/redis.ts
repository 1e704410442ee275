import Redis, { type RedisOptions } from 'ioredis';

export type { Redis };

/**
 * A Redis connection. Commands fail fast while Redis is down (no unbounded offline queue),
 * so a request gets a 503 instead of hanging; the client keeps reconnecting in the background.
 */
export function createRedis(url: string, extra: RedisOptions = {}): Redis {
  return new Redis(url, {
    lazyConnect: false,
    enableOfflineQueue: true,
    maxRetriesPerRequest: 1,
    connectTimeout: 2000,
    retryStrategy: (times) => Math.min(50 * 2 ** Math.min(times, 6), 2000),
    ...extra,
  });
}

/** Connection BullMQ workers need: blocking commands must not be retried per request. */
export function createBullConnection(url: string): Redis {
  return createRedis(url, { maxRetriesPerRequest: null, enableOfflineQueue: true });
}

/** Builds keys under the deployment prefix. BullMQ forbids ioredis keyPrefix, so keys are prefixed by hand. */
export class RedisKeys {
  constructor(readonly prefix: string) {}

  key(...parts: (string | number)[]): string {
    return this.prefix + parts.join(':');
  }

}

/** The prefix BullMQ puts before this deployment's queue keys (queues, workers and events alike). */
export function bullPrefix(redisPrefix: string): string {
  return `${redisPrefix}bull`;
}

export async function closeRedis(redis: Redis): Promise<void> {
  if (redis.status === 'end') return;
  try {
    await redis.quit();
  } catch {
    redis.disconnect();
  }
}
