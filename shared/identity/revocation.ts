import type { Logger } from '../logging';
import type { Redis } from '../redis';

/** What is announced when a key is removed, so socket replicas can drop its connections at once. */
export interface RevocationMessage {
  kind: 'maker_key' | 'taker_key';
  keyId: string;
}

/** Redis pub/sub channel (under REDIS_PREFIX) on which key revocations are announced as JSON. */
export function revocationChannel(prefix: string): string {
  return `${prefix}identity:revocations`;
}

/**
 * Announces a revocation. The database row is already revoked when this runs, so a lost
 * message only delays a socket's reaction until its next check; it is logged, not thrown.
 */
export async function publishRevocation(redis: Redis, prefix: string, msg: RevocationMessage, logger: Logger): Promise<void> {
  try {
    await redis.publish(revocationChannel(prefix), JSON.stringify(msg));
  } catch (err) {
    logger.warn({ key_id: msg.keyId, err: (err as Error).message }, 'could not announce key revocation');
  }
}
