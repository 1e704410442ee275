import type { DataSource } from 'typeorm';
import { activeTakerKeysOf, revocationChannel, type ActiveTakerKeys } from '../shared/identity';
import { networkChangeChannel, NetworksService, type NetworkEntity, type NetworkLookup } from '../shared/networks';
import type { Config } from '../shared/platform/config';
import type { Logger } from '../shared/platform/logging';
import { closeRedis, createSubscriber, onMessage, subscribeTo, type Redis } from '../shared/platform/redis';

/** Entries kept at most per kind (oldest dropped first): key ids and chain ids are few in practice. */
const MAX_ENTRIES = 10_000;

interface Entry<V> {
  value: V;
  until: number;
}

/**
 * The gate's per-request checks from memory: "is this taker key still active (and whose)?" and
 * "is this network registered and enabled?", each answered from the database once and then kept
 * in this process until one of these ends it:
 *
 * - a notice: a key revocation on `revocationChannel` (the one the socket tier hears) drops that
 *   key; a network change on `networkChangeChannel` drops that network; a notice this process
 *   cannot read drops everything;
 * - the notice channel going away: while the subscriber is not subscribed (not yet started,
 *   reconnecting after a Redis outage, a restart that lost what Redis held) nothing is kept or
 *   served from memory, every check asks the database, and what was kept is dropped; memory is
 *   used again only after the subscription is confirmed on the new connection;
 * - age: an entry older than `GATE_MEMORY_MS` is asked again, which bounds a change nobody
 *   announced (a notice whose publish failed, a row edited by hand).
 *
 * Every drop bumps an epoch; a lookup that started before a drop does not store its answer, so a
 * read that raced a revocation cannot put the revoked key back. Negative answers (unknown key,
 * unknown chain) are not kept: ids a caller makes up cannot grow this process's memory.
 */
export class GateMemory {
  readonly takerKeys: ActiveTakerKeys;
  readonly networks: NetworkLookup;
  private readonly keys = new Map<string, Entry<string>>();
  private readonly chains = new Map<number, Entry<NetworkEntity>>();
  private epoch = 0;
  private live = false;
  /** Notices read on the channels (probes and tests wait on it). */
  noticesHeard = 0;
  /** Times the notices were subscribed on a connection and memory began serving (1 after start, +1 per reconnect). */
  subscriptions = 0;
  private sub: Redis | null = null;
  private readonly fromDb: ActiveTakerKeys;
  private readonly networkRepo: NetworksService;
  private readonly channels: { keys: string; networks: string };

  constructor(private readonly deps: { config: Config; db: DataSource; logger: Logger; ttlMs?: number }) {
    this.fromDb = activeTakerKeysOf(deps.db);
    this.networkRepo = new NetworksService(deps.db);
    this.channels = { keys: revocationChannel(deps.config.REDIS_PREFIX), networks: networkChangeChannel(deps.config.REDIS_PREFIX) };
    this.takerKeys = { organizationOf: (keyId) => this.organizationOf(keyId), forget: (keyId) => this.forgetKey(keyId) };
    this.networks = { network: (chainId) => this.network(chainId) };
  }

  private get ttlMs(): number {
    return this.deps.ttlMs ?? this.deps.config.GATE_MEMORY_MS;
  }

  /** True while answers may come from memory: the notices are subscribed and memory is on. */
  get serving(): boolean {
    return this.live && this.ttlMs > 0;
  }

  /**
   * Subscribes to the notices on a connection of its own; memory serves from the moment the
   * subscription is confirmed. Without `start` (tests that build an app and never start it)
   * every check asks the database, as before this memory existed.
   */
  async start(): Promise<void> {
    if (this.sub || this.ttlMs === 0) return;
    const sub = createSubscriber(this.deps.config);
    this.sub = sub;
    onMessage(sub, (channel, message) => this.onNotice(channel, message));
    // Any sign the connection is not the one that holds the subscription: stop serving, forget.
    for (const event of ['close', 'end', 'reconnecting'] as const) sub.on(event, () => this.blind(event));
    // ioredis subscribes again on its own after a reconnect; memory serves only once this
    // process has seen its own SUBSCRIBE answered on the new connection.
    sub.on('ready', () => void this.subscribe(sub));
    if (sub.isCluster) sub.on('subscribersReady', () => void this.subscribe(sub));
    await this.subscribe(sub);
  }

  async close(): Promise<void> {
    const sub = this.sub;
    this.sub = null;
    this.blind('closed');
    if (sub) await closeRedis(sub);
  }

  /** The subscriber connection the notices come on, while started (tests cut it to play a Redis outage). */
  get noticeConnection(): Redis | null {
    return this.sub;
  }

  /** Drops everything this process remembers (also what the tests call "a missed notice"). */
  forgetAll(): void {
    this.epoch++;
    this.keys.clear();
    this.chains.clear();
  }

  /** This process revoked the key itself: forget it now rather than when its own notice comes back. */
  forgetKey(keyId: string): void {
    this.epoch++;
    this.keys.delete(keyId);
  }

  private async subscribe(sub: Redis): Promise<void> {
    try {
      await subscribeTo(sub, this.channels.keys, this.channels.networks);
    } catch (err) {
      this.blind('subscribe failed');
      this.deps.logger.warn({ err: (err as Error).message }, 'gate memory: could not subscribe to revocation notices; checks ask the database');
      return;
    }
    if (this.sub !== sub || sub.status !== 'ready') return;
    this.forgetAll();
    this.live = true;
    this.subscriptions++;
  }

  private blind(why: string): void {
    if (this.live) this.deps.logger.info({ why }, 'gate memory: notice channel down; checks ask the database until it is back');
    this.live = false;
    this.forgetAll();
  }

  private onNotice(channel: string, message: string): void {
    if (channel !== this.channels.keys && channel !== this.channels.networks) return;
    this.noticesHeard++;
    let body: { keyId?: unknown; chain_id?: unknown };
    try {
      body = JSON.parse(message) as typeof body;
    } catch {
      body = {};
    }
    if (channel === this.channels.keys && typeof body.keyId === 'string') return this.forgetKey(body.keyId);
    if (channel === this.channels.networks && typeof body.chain_id === 'number') {
      this.epoch++;
      this.chains.delete(body.chain_id);
      return;
    }
    // A notice that names nothing this process can find: forget everything rather than guess.
    this.forgetAll();
  }

  private async organizationOf(keyId: string): Promise<string | null> {
    return this.remembered(this.keys, keyId, () => this.fromDb.organizationOf(keyId));
  }

  private async network(chainId: number): Promise<NetworkEntity | null> {
    return this.remembered(this.chains, chainId, () => this.networkRepo.network(chainId));
  }

  private async remembered<K, V>(map: Map<K, Entry<V>>, key: K, load: () => Promise<V | null>): Promise<V | null> {
    const now = Date.now();
    if (this.serving) {
      const hit = map.get(key);
      if (hit && hit.until > now) return hit.value;
    }
    const epoch = this.epoch;
    const value = await load();
    // Kept only if no notice (nor the channel going down) came while the database answered.
    if (value !== null && this.serving && epoch === this.epoch) {
      map.delete(key);
      if (map.size >= MAX_ENTRIES) map.delete(map.keys().next().value as K);
      map.set(key, { value, until: now + this.ttlMs });
    }
    return value;
  }
}
