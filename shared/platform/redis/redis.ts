import Redis, { type RedisOptions } from 'ioredis';

export type { Redis };

/** Longest a command may wait for its reply, queued offline or sent to a Redis that stopped answering. */
export const REDIS_COMMAND_TIMEOUT_MS = 2000;
/** Longest pause between two reconnection attempts while Redis is down. */
const RECONNECT_MAX_DELAY_MS = 500;

/**
 * A Redis connection. Commands fail fast while Redis is down, so a request gets a 503
 * (shared/platform/errors maps these failures) instead of hanging; the client keeps reconnecting in
 * the background. A command issued while the connection is down waits in the offline queue
 * for at most one reconnection attempt; `commandTimeout` bounds the rest, including a Redis
 * that accepts connections but no longer answers (paused, partitioned), where the socket
 * never closes and nothing else would ever reject the command.
 */
export function createRedis(url: string, extra: RedisOptions = {}): Redis {
  return new Redis(url, {
    lazyConnect: false,
    enableOfflineQueue: true,
    maxRetriesPerRequest: 1,
    connectTimeout: 2000,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    // A queued command fails at the next failed reconnection attempt, so the cap on the delay
    // between attempts is also about how long a request waits for its 503 during an outage.
    retryStrategy: (times) => Math.min(50 * 2 ** Math.min(times, 6), RECONNECT_MAX_DELAY_MS),
    ...extra,
  });
}

/**
 * Connection BullMQ workers need: blocking commands (which wait server-side on purpose) must
 * be neither timed out nor failed per request; the worker waits for Redis to come back.
 */
export function createBullConnection(url: string): Redis {
  return createRedis(url, { maxRetriesPerRequest: null, enableOfflineQueue: true, commandTimeout: undefined });
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
