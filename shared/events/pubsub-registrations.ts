import { getAddress } from 'viem';
import type { DataSource } from 'typeorm';
import type { Config } from '../platform/config';
import { hashTag, luaScript, RedisEpoch, RedisKeys, type Redis } from '../platform/redis';
import { PubsubRegistrationRepository } from './pubsub-registration.repository';

export const PUBSUB_TIERS = ['premium', 'freemium'] as const;
export type PubsubTier = (typeof PUBSUB_TIERS)[number];

/** Which of these API key ids have been removed (the database decides). */
export type RevokedAmong = (keyIds: string[]) => Promise<string[]>;

/** Removes the registrations a key made, compare-and-delete (shared/platform/redis/lua/registrations-drop-key-2.lua). */
const DROP_KEY = luaScript('registrations-drop-key');

/** Forgets the key of lapsed registrations and answers the rest, `[member, key id, ...]` (shared/platform/redis/lua/registrations-keyed-members-2.lua). */
const KEYED_MEMBERS = luaScript('registrations-keyed-members');

/**
 * Who registered for which chain's request feed (POST /api/pubsub/premium|freemium). The
 * socket tier reads it on join; workers read it to find the makers to notify.
 *
 * Served from Redis: every join reads it, and every announcement reads the premium set. Postgres
 * keeps a copy (`pubsub_registrations`, written before Redis by `register`), so a Redis that loses
 * its data (docs/FAULTS.md, "Redis data loss") gets the registrations back from it (`restore`,
 * run by the workers when the Redis epoch changes): a maker's rfq_maker topic and its joins keep
 * working without the bot registering again. Per chain and tier
 * one sorted set, member = checksummed wallet, score = when that registration lapses (unix ms);
 * registering again pushes the lapse out by the TTL. A premium registration is never
 * downgraded by a freemium one: the tiers are separate sets.
 *
 * A registration made with a maker API key goes with that key: beside each sorted set a hash
 * records which key made a member's registration, so removing the key removes exactly what it
 * registered, and a periodic sweep finds registrations of keys removed while nobody was told.
 * The chains that have registrations are listed in a set, so both can reach every chain.
 * A chain's sets and hashes carry the chain id as their hash tag (`pubsub:reg:{<chain>}:<tier>`):
 * on a cluster one chain's registrations share a slot, which the MULTI and the scripts need.
 */
export class PubsubRegistrations {
  private readonly keys: RedisKeys;
  private readonly ttlMs: number;

  constructor(
    private readonly redis: Redis,
    config: Pick<Config, 'REDIS_PREFIX' | 'PUBSUB_REGISTRATION_TTL_SECONDS'>,
    /** Where registrations are kept for a rebuild; absent = Redis only (what `restore` needs and `register` writes first). */
    private readonly db?: DataSource,
  ) {
    this.keys = new RedisKeys(config.REDIS_PREFIX);
    this.ttlMs = config.PUBSUB_REGISTRATION_TTL_SECONDS * 1000;
  }

  /**
   * Registers (or refreshes) a wallet; returns when the registration lapses (unix ms).
   * `keyId`: the maker key it was made with, so it ends with that key; null for a wallet's own session.
   */
  async register(chainId: number, address: string, tier: PubsubTier, keyId: string | null = null): Promise<number> {
    const key = this.key(chainId, tier);
    const byKey = this.keyedKey(chainId, tier);
    const member = getAddress(address);
    const now = Date.now();
    const lapses = now + this.ttlMs;
    // Postgres first: Redis never holds a registration its rebuild would not bring back.
    if (this.db) await new PubsubRegistrationRepository<PubsubTier>(this.db).upsert(chainId, tier, member, keyId, lapses);
    // The chain is listed first, in its own slot: a chain listed without a registration costs a
    // sweep one empty read, a registration on an unlisted chain would escape the sweeps.
    await this.redis.multi().sadd(this.chainsKey(), String(chainId)).pexpire(this.chainsKey(), this.ttlMs).exec();
    const tx = this.redis.multi().zadd(key, lapses, member).zremrangebyscore(key, '-inf', now).pexpire(key, this.ttlMs);
    if (keyId) tx.hset(byKey, member, keyId).pexpire(byKey, this.ttlMs);
    else tx.hdel(byKey, member);
    await tx.exec();
    return lapses;
  }

  /** The best tier the wallet holds on that chain, or null when it never registered or it lapsed. */
  async tierOf(chainId: number, address: string): Promise<PubsubTier | null> {
    const member = getAddress(address);
    const now = Date.now();
    for (const tier of PUBSUB_TIERS) {
      const lapses = await this.redis.zscore(this.key(chainId, tier), member);
      if (lapses !== null && Number(lapses) > now) return tier;
    }
    return null;
  }

  /** True when the wallet holds a current registration on some chain, in either tier. */
  async registeredAnywhere(address: string): Promise<boolean> {
    const member = getAddress(address);
    const chains = await this.chains();
    if (chains.length === 0) return false;
    // One read per chain and tier, sent together (a pipeline would need them in one slot on a cluster).
    const reads = chains.flatMap((c) => PUBSUB_TIERS.map((t) => this.redis.zscore(this.key(c, t), member).catch(() => null)));
    const now = Date.now();
    return (await Promise.all(reads)).some((lapses) => lapses !== null && Number(lapses) > now);
  }

  /** Wallets currently registered on a chain, in one tier or both. */
  async registered(chainId: number, tier?: PubsubTier): Promise<`0x${string}`[]> {
    const now = Date.now();
    const tiers = tier ? [tier] : PUBSUB_TIERS;
    const lists = await Promise.all(tiers.map((t) => this.redis.zrangebyscore(this.key(chainId, t), `(${now}`, '+inf')));
    return [...new Set(lists.flat())] as `0x${string}`[];
  }

  /**
   * `registered`, for an announcement about to be published: refused (throws, the caller retries)
   * when the read may have met a Redis that lost its data and was not restored yet. A new epoch
   * restores the registrations before its key is written, and a publish refuses while the key is
   * missing; but a read made on the emptied Redis, then a publish after the new epoch opened, sent
   * a quote to the request feed and to no premium maker, for good (docs/FAULTS.md, "What the
   * faults found"). So the epoch key is read before and after: missing or changed, it throws.
   * Without an epoch watching this client (a tool, a test) it is `registered`.
   */
  async registeredInEpoch(chainId: number, tier?: PubsubTier): Promise<`0x${string}`[]> {
    const epoch = RedisEpoch.of(this.redis);
    if (!epoch) return this.registered(chainId, tier);
    const before = await this.redis.hget(epoch.key, 'epoch');
    const found = await this.registered(chainId, tier);
    const after = before === null ? null : await this.redis.hget(epoch.key, 'epoch');
    if (before === null || after !== before) {
      throw new Error(
        'EPOCHLOST the Redis epoch changed or is missing while the registrations were read (its data was lost): announcing waits for the new epoch',
      );
    }
    return found;
  }

  /**
   * Forgets the Postgres copies of registrations that lapsed (Redis drops them itself: each
   * register trims its set, and the set expires with its last member). Answers how many.
   */
  async purgeLapsed(): Promise<number> {
    if (!this.db) throw new Error('PubsubRegistrations.purgeLapsed needs the database');
    return new PubsubRegistrationRepository<PubsubTier>(this.db).deleteLapsed();
  }

  /** Removes every registration the key made, on every chain; answers how many. */
  async dropKey(keyId: string): Promise<number> {
    if (this.db) await new PubsubRegistrationRepository<PubsubTier>(this.db).deleteByKey(keyId);
    return dropKeyRegistrations(this.redis, this.keys.prefix, keyId);
  }

  /**
   * Drops the registrations of keys that were removed, for when the removal's own clean-up did
   * not run (Redis was away, the process died between the two). At most one replica sweeps per
   * `everyMs` (a Redis lock); answers how many registrations were dropped, null when another had the turn.
   */
  async sweepRemovedKeys(revokedAmong: RevokedAmong, everyMs: number): Promise<number | null> {
    const turn = await this.redis.set(this.keys.key('pubsub', 'sweep'), '1', 'PX', everyMs, 'NX');
    if (turn === null) return null;
    const ids = new Set<string>();
    for (const c of await this.chains()) {
      for (const t of PUBSUB_TIERS) {
        const pairs = (await KEYED_MEMBERS.run(this.redis, [this.key(c, t), this.keyedKey(c, t)], [Date.now()])) as string[];
        for (let i = 1; i < pairs.length; i += 2) ids.add(pairs[i]);
      }
    }
    if (ids.size === 0) return 0;
    let n = 0;
    for (const id of await revokedAmong([...ids])) n += await this.dropKey(id);
    return n;
  }

  /**
   * Writes every registration Postgres holds that has not lapsed back into Redis, except those
   * made with a key removed since (dropped from Postgres too): the rebuild after a Redis data
   * loss. Answers how many were restored. Idempotent: a registration made meanwhile is rewritten
   * with the lapse Postgres has, which `register` wrote at the same time.
   */
  async restore(revokedAmong: RevokedAmong): Promise<number> {
    if (!this.db) throw new Error('PubsubRegistrations.restore needs the database');
    const stored = new PubsubRegistrationRepository<PubsubTier>(this.db);
    await stored.deleteLapsed();
    const rows = await stored.all();
    const keyIds = [...new Set(rows.flatMap((r) => (r.key_id ? [r.key_id] : [])))];
    const revoked = new Set(keyIds.length > 0 ? await revokedAmong(keyIds) : []);
    if (revoked.size > 0) await stored.deleteByKeys([...revoked]);
    const now = Date.now();
    let n = 0;
    for (const r of rows) {
      if (r.key_id && revoked.has(r.key_id)) continue;
      const lapses = Number(r.lapses);
      const ttl = lapses - now;
      if (ttl <= 0) continue;
      await this.redis.multi().sadd(this.chainsKey(), String(r.chain_id)).pexpire(this.chainsKey(), this.ttlMs).exec();
      const key = this.key(r.chain_id, r.tier);
      const byKey = this.keyedKey(r.chain_id, r.tier);
      const tx = this.redis.multi().zadd(key, lapses, r.address).pexpire(key, this.ttlMs);
      if (r.key_id) tx.hset(byKey, r.address, r.key_id).pexpire(byKey, this.ttlMs);
      await tx.exec();
      n++;
    }
    return n;
  }

  private chains(): Promise<number[]> {
    return chainsOf(this.redis, this.keys);
  }

  private key(chainId: number, tier: PubsubTier): string {
    return regKey(this.keys, chainId, tier);
  }

  private keyedKey(chainId: number, tier: PubsubTier): string {
    return keyedKey(this.keys, chainId, tier);
  }

  private chainsKey(): string {
    return chainsKey(this.keys);
  }
}

/**
 * Removes every registration an API key made, on every chain; answers how many. Standalone so
 * the code that removes keys needs only Redis and the prefix.
 */
export async function dropKeyRegistrations(redis: Redis, prefix: string, keyId: string): Promise<number> {
  const k = new RedisKeys(prefix);
  let n = 0;
  for (const c of await chainsOf(redis, k)) {
    for (const t of PUBSUB_TIERS) n += Number(await DROP_KEY.run(redis, [regKey(k, c, t), keyedKey(k, c, t)], [keyId]));
  }
  return n;
}

export const regKey = (keys: RedisKeys, chainId: number, tier: PubsubTier) => keys.key('pubsub', 'reg', hashTag(chainId), tier);
export const keyedKey = (keys: RedisKeys, chainId: number, tier: PubsubTier) => keys.key('pubsub', 'reg-key', hashTag(chainId), tier);
const chainsKey = (keys: RedisKeys) => keys.key('pubsub', 'chains');

async function chainsOf(redis: Redis, keys: RedisKeys): Promise<number[]> {
  return (await redis.smembers(chainsKey(keys))).map(Number).filter((c) => Number.isSafeInteger(c));
}
