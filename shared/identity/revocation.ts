import type { DataSource } from 'typeorm';
import type { Logger } from '../platform/logging';
import { publishTo, type Redis } from '../platform/redis';
import { ApiKeyRepository } from './api-key.repository';

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
 * Drops the pubsub registrations a removed maker key made: shared/events' `dropKeyRegistrations`,
 * handed in by the role that builds IdentityService. The topic domain imports this one (its join
 * rules judge principals), so identity names no code of it.
 */
export type DropKeyRegistrations = (redis: Redis, prefix: string, keyId: string) => Promise<unknown>;

/**
 * Runs once a key's row is revoked: drops the pubsub registrations the key made, then
 * announces the revocation. Neither step is allowed to fail the removal: the database row
 * already says revoked, and socket replicas re-check their key-authenticated channels and
 * sweep registrations of removed keys periodically (SOCKET_KEY_RECHECK_INTERVAL_MS), so a
 * step that fails here is only late. Failures are logged, not thrown.
 */
export async function publishRevocation(
  redis: Redis,
  prefix: string,
  msg: RevocationMessage,
  logger: Logger,
  /** A maker key's registrations go with it; a taker key registers nothing (null). */
  dropKeyRegistrations: DropKeyRegistrations | null,
): Promise<void> {
  if (msg.kind === 'maker_key' && dropKeyRegistrations) {
    try {
      await dropKeyRegistrations(redis, prefix, msg.keyId);
    } catch (err) {
      logger.warn({ key_id: msg.keyId, err: (err as Error).message }, 'could not drop the pubsub registrations of a removed key');
    }
  }
  try {
    await publishTo(redis, revocationChannel(prefix), JSON.stringify(msg));
  } catch (err) {
    logger.warn({ key_id: msg.keyId, err: (err as Error).message }, 'could not announce key revocation');
  }
}

/**
 * The database's word on which keys are gone: what a socket replica asks periodically about the
 * keys behind its channels, because one missed announcement must not keep a channel forever.
 */
export class KeyRevocations {
  private readonly keys: ApiKeyRepository;

  constructor(db: DataSource) {
    this.keys = new ApiKeyRepository(db);
  }

  /** The ids among `keyIds` that are revoked or no longer exist. */
  async revokedAmong(keyIds: string[]): Promise<string[]> {
    const active = await this.keys.activeIds(keyIds);
    return keyIds.filter((id) => !active.has(id));
  }
}
