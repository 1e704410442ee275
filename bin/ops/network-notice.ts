import { networkChangeChannel } from '../../shared/networks';
import type { Config } from '../../shared/platform/config';
import { createRedis, publishTo } from '../../shared/platform/redis';

/** How long the CLI waits for Redis to take the notice before it gives up (the change is stored either way). */
const NOTICE_TIMEOUT_MS = 3000;

/**
 * Tells every API process that the network `chainId` changed, so the ones that remember it (the
 * gate's memory, api/gate-memory.ts) ask the database again at once. Best effort: the row is
 * already written; without the notice a process notices within GATE_MEMORY_MS. Says on stderr
 * when it could not send it.
 */
export async function announceNetworkChange(config: Config, chainId: number): Promise<void> {
  const redis = createRedis(config, { maxRetriesPerRequest: 1, lazyConnect: true });
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      redis.connect().then(() => publishTo(redis, networkChangeChannel(config.REDIS_PREFIX), JSON.stringify({ chain_id: chainId }))),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer from Redis within ${NOTICE_TIMEOUT_MS} ms`)), NOTICE_TIMEOUT_MS);
      }),
    ]);
  } catch (err) {
    process.stderr.write(
      `warning: network ${chainId} is stored, but its change could not be announced (${(err as Error).message}); API processes see it within GATE_MEMORY_MS\n`,
    );
  } finally {
    clearTimeout(timer);
    redis.disconnect();
  }
}
