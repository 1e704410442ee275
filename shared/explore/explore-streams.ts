import type { DataSource } from 'typeorm';
import type { EventPublisher } from '../events';
import type { Config } from '../platform/config';
import { ServiceUnavailableError } from '../platform/errors';
import type { JobQueue } from '../platform/queue';
import type { Redis } from '../platform/redis';
import { hashStreamToken, StreamTokens } from '../platform/stream-tokens';
import { EventHistory, EventKeys, RelayAnchors } from '../platform/event-bus';
import { feedTopic, type ExploreFeed, type SnapshotBlock } from './explore-feed';
import { FeedOutbox, type OutboxEntry } from './feed-outbox';
import { exploreStreamOpenJob } from './explore.jobs';
import { ExploreWatchers, type ExploreFeedName } from './explore-watchers';
import { FeedLock } from './feed-lock';

/** The answer of `POST /api/explore/.../stream`. */
export interface MintedStream {
  stream_token: string;
  topic: string;
  expires_in: number;
}

const lockName = (feed: ExploreFeedName, chainId: number, subject: string) => `${feed}:${chainId}:${subject.toLowerCase()}`;

/**
 * The API's half: mints a stream token for a subject and asks a worker to open the stream. The
 * client may join at once: token topics replay from their first event, so the snapshot the
 * worker publishes reaches it whenever it arrives, followed by every later event in order.
 */
export class ExploreStreamMinter {
  private readonly tokens: StreamTokens;

  constructor(private readonly deps: { redis: Redis; config: Config; queue: JobQueue }) {
    this.tokens = new StreamTokens(deps.redis, deps.config.REDIS_PREFIX);
  }

  async mint(feed: ExploreFeed, chainId: number, subject: string): Promise<MintedStream> {
    const ttl = this.deps.config.EXPLORE_STREAM_TTL_SECONDS;
    const token = await this.tokens.mint(feed.streamKind, ttl, { chain_id: chainId, subject });
    const expiresAtMs = Date.now() + ttl * 1000;
    const payload = { feed: feed.name, chain_id: chainId, subject, token_hash: hashStreamToken(token), expires_at_ms: expiresAtMs };
    try {
      await this.deps.queue.enqueue(exploreStreamOpenJob, payload);
    } catch {
      // Without the open job the stream would stay silent: refuse the token rather than hand out a dead one.
      await this.tokens.revoke(feed.streamKind, token).catch(() => undefined);
      throw new ServiceUnavailableError('explore streams are unavailable, retry shortly', 'explore_stream_unavailable', 1);
    }
    return { stream_token: token, topic: feed.topic(token), expires_in: ttl };
  }
}

/** How many entries one fan-out turn reads. */
const FANOUT_READ = 200;
/** One turn holds the subject's lock at most about this long (well under the lock's TTL), then lets others in. */
const FANOUT_TURN_MS = 3_000;
/** The idempotency key of a stream's join snapshot on its token topic: published once per token. */
const JOIN_SNAPSHOT_KEY = 'snapshot.open';

/**
 * The stream machinery after the mint. The indexer appends each event of a subject to the
 * subject's outbox once (`append`), whatever the number of streams; the workers publish the
 * outbox once to the subject's feed topic (`fanout`) and open streams (`open`): a stream's
 * topic gets its join snapshot, and a relay anchor tells the socket tier where in the feed topic
 * that snapshot stands, so each replica relays the feed's later events to the stream
 * (docs/SOCKETS.md, "Relayed topics"). Nothing here is done once per stream per event.
 *
 * Opening and fanning out hold the subject's lock, which makes this rule hold: a stream hears
 * each event above its snapshot's block exactly once, in chain order, after its snapshot. The
 * anchor is the feed's head read under the lock after the snapshot; an event committed before
 * the snapshot but appended after it lands in the feed after the anchor with a block at or below
 * the snapshot's, and the relay skips that leading run.
 */
export class ExploreStreamHub {
  private readonly watchers: ExploreWatchers;
  private readonly lock: FeedLock;
  private readonly outbox: FeedOutbox;
  private readonly anchors: RelayAnchors;
  private readonly history: EventHistory;
  private readonly eventKeys: EventKeys;

  constructor(private readonly deps: { db: DataSource; redis: Redis; config: Config; events: EventPublisher }) {
    this.watchers = new ExploreWatchers(deps.redis, deps.config.REDIS_PREFIX);
    this.lock = new FeedLock(deps.redis, deps.config.REDIS_PREFIX);
    this.outbox = new FeedOutbox(deps.redis, this.watchers);
    this.anchors = new RelayAnchors(deps.redis, deps.config.REDIS_PREFIX);
    this.history = new EventHistory(deps.redis, deps.config);
    this.eventKeys = new EventKeys(deps.config.REDIS_PREFIX);
  }

  /**
   * The indexer's half: appends a subject's events (or a rollback) in chain order, once each.
   * Answers the last entry's id and the subject's watcher count; with watchers, the caller asks
   * a worker to fan out (`exploreStreamFanoutJob`).
   */
  append(feed: ExploreFeedName, chainId: number, subject: string, entries: readonly OutboxEntry[]): Promise<{ id: string | null; watchers: number }> {
    return this.outbox.append(feed, chainId, subject, entries);
  }

  /** How many live streams watch the subject (the indexer skips building what nobody watches). */
  watching(feed: ExploreFeedName, chainId: number, subject: string): Promise<number> {
    return this.watchers.count(feed, chainId, subject);
  }

  /**
   * Opens one minted stream: the outbox sent (or, with nobody watching, dropped), the watcher
   * recorded, the snapshot read, the anchor at the feed's head, then the snapshot published to
   * the token's topic. A retry after the snapshot went out changes nothing: the anchor written
   * before it stands.
   */
  async open(feed: ExploreFeed, p: { chain_id: number; subject: string; token_hash: string; expires_at_ms: number }): Promise<void> {
    if (p.expires_at_ms <= Date.now()) return;
    const subject = p.subject;
    const tokenTopic = feed.tokenTopic(p.token_hash);
    await this.lock.with(lockName(feed.name, p.chain_id, subject), async () => {
      // What was appended before is older than the snapshot: sent on (or, with nobody watching,
      // dropped) before the anchor is read. One turn, so the lock is held well under its TTL; what
      // a long backlog leaves follows the anchor, at or below the snapshot's block, and the
      // anchor settles past it.
      await this.drain(feed, p.chain_id, subject, Date.now() + FANOUT_TURN_MS);
      await this.watchers.watch(feed.name, p.chain_id, subject, p.token_hash, p.expires_at_ms);
      const snap = await feed.snapshot(this.deps.db, p.chain_id, p.subject);
      if ((await this.deps.redis.exists(this.eventKeys.once(tokenTopic.key, JOIN_SNAPSHOT_KEY))) === 1) return;
      const from = feedTopic(feed.name, p.chain_id, subject);
      const anchor = { feed: from.key, after: await this.history.head(from.key), block: snap.block.number };
      // As long as the token's topic can be joined (its log lives the token's life plus the grace).
      const ttlMs = p.expires_at_ms - Date.now() + this.deps.config.SOCKET_TOKEN_TOPIC_GRACE_SECONDS * 1000;
      await this.anchors.set(tokenTopic.key, { ...anchor, settled: false }, ttlMs);
      // Until the first feed event past the snapshot's block, the anchor is the drain's to settle.
      const pending = this.watchers.key(feed.name, p.chain_id, subject, 'pending');
      await this.deps.redis
        .multi()
        .hset(pending, p.token_hash, JSON.stringify([anchor.after, anchor.block, p.expires_at_ms]))
        .pexpire(pending, SUBJECT_STATE_TTL_MS)
        .exec();
      await feed.publishSnapshot(this.deps.events, tokenTopic, snap, 'join', JOIN_SNAPSHOT_KEY);
    });
    // An event appended between the drain and the watcher's record asked for no fan-out: send it now.
    await this.fanout(feed, p.chain_id, subject);
  }

  /**
   * Publishes the subject's outbox, in order, once to its feed topic: an event as it is (with a
   * top-level `block_number`, which relays filter on); a rollback as the notice and a fresh
   * snapshot (reason `reorg`), after which events at or below that snapshot's block are dropped
   * (the snapshot has them). With nobody watching, entries are acknowledged and dropped: a stream
   * opened later starts from its own snapshot. Idempotency keys name each publish once, so a
   * fan-out retried after a crash sends nothing twice.
   */
  async fanout(feed: ExploreFeed, chainId: number, subject: string): Promise<void> {
    for (;;) {
      const more = await this.lock.with(lockName(feed.name, chainId, subject), () => this.drain(feed, chainId, subject, Date.now() + FANOUT_TURN_MS));
      if (!more) return;
    }
  }

  /** One turn under the lock; true when entries are left for another turn. */
  private async drain(feed: ExploreFeed, chainId: number, subject: string, until: number): Promise<boolean> {
    const to = feedTopic(feed.name, chainId, subject);
    const floorKey = this.watchers.key(feed.name, chainId, subject, 'floor');
    for (;;) {
      const batch = await this.outbox.read(feed.name, chainId, subject, FANOUT_READ);
      if (batch.length === 0) return false;
      const watched = (await this.watchers.count(feed.name, chainId, subject)) > 0;
      const stored = await this.deps.redis.get(floorKey);
      let floor = stored === null ? null : Number(stored);
      const anchors = await this.pendingAnchors(feed, chainId, subject);
      let snap: { block: SnapshotBlock } | null = null;
      for (const { entry } of batch) {
        if (entry.rollback) {
          floor = null;
          // A rollback notice ends every stream's leading run: whatever follows is theirs to hear.
          anchors.settleAll();
          if (!watched) continue;
          snap ??= await feed.snapshot(this.deps.db, chainId, subject);
          await feed.publishRollback(this.deps.events, to, chainId, subject, entry.rollback, `rollback.${entry.key}`);
          await feed.publishSnapshot(this.deps.events, to, snap, 'reorg', `snapshot.${entry.key}`);
          floor = snap.block.number;
          continue;
        }
        if (!watched || (floor !== null && entry.block <= floor)) continue;
        const { seq } = await this.deps.events.publish(to as never, entry.event as never, withBlock(entry) as never, { idempotencyKey: entry.key });
        anchors.passed(entry.block, seq);
      }
      await anchors.save();
      if (floor === null) await this.deps.redis.del(floorKey);
      else await this.deps.redis.set(floorKey, String(floor), 'PX', SUBJECT_STATE_TTL_MS);
      await this.outbox.ack(feed.name, chainId, subject, batch[batch.length - 1].id);
      if (batch.length < FANOUT_READ) return false;
      if (Date.now() > until) return true;
    }
  }

  /**
   * The subject's anchors still in their leading run (opened, no feed event past their snapshot's
   * block yet). As the drain publishes, in feed order: an event at or below an anchor's block
   * moves the anchor past it (the snapshot has it; the relay skips it by the same rule); the
   * first one above, or a rollback, settles the anchor, which is then rewritten for the socket
   * tier (RelayAnchor.settled) and forgotten here. Expired tokens' anchors are dropped.
   */
  private async pendingAnchors(feed: ExploreFeed, chainId: number, subject: string) {
    const key = this.watchers.key(feed.name, chainId, subject, 'pending');
    const raw = await this.deps.redis.hgetall(key);
    const now = Date.now();
    const pending = new Map<string, { after: number; block: number; expires: number }>();
    const gone: string[] = [];
    for (const [tokenHash, v] of Object.entries(raw)) {
      const [after, block, expires] = JSON.parse(v) as [number, number, number];
      if (expires <= now) gone.push(tokenHash);
      else pending.set(tokenHash, { after, block, expires });
    }
    const moved = new Set<string>();
    const settled = new Map<string, { after: number; block: number }>();
    const settle = (tokenHash: string) => {
      const p = pending.get(tokenHash)!;
      settled.set(tokenHash, p);
      pending.delete(tokenHash);
    };
    const feedKey = feedTopic(feed.name, chainId, subject).key;
    return {
      passed: (block: number, seq: number) => {
        for (const [tokenHash, p] of pending) {
          if (block <= p.block) {
            p.after = seq;
            moved.add(tokenHash);
          } else settle(tokenHash);
        }
      },
      settleAll: () => {
        for (const tokenHash of [...pending.keys()]) settle(tokenHash);
      },
      save: async () => {
        // Each in its own token's slot: sent side by side (a flood of new streams settles at its first event), not one round trip each.
        const all = [...settled];
        for (let i = 0; i < all.length; i += SETTLE_PARALLEL)
          await Promise.all(
            all
              .slice(i, i + SETTLE_PARALLEL)
              .map(([tokenHash, p]) => this.anchors.settle(feed.tokenTopic(tokenHash).key, { feed: feedKey, after: p.after, block: p.block })),
          );
        const m = this.deps.redis.multi();
        const drop = [...gone, ...settled.keys()];
        if (drop.length > 0) m.hdel(key, ...drop);
        for (const tokenHash of moved) {
          const p = pending.get(tokenHash);
          if (p) m.hset(key, tokenHash, JSON.stringify([p.after, p.block, p.expires]));
        }
        if (drop.length > 0 || moved.size > 0) await m.exec();
      },
    };
  }
}

/** The subject's floor and pending anchors live as long as its outbox after its last append (feed-outbox.ts). */
const SUBJECT_STATE_TTL_MS = 24 * 3600 * 1000;
/** Anchors settled at once. */
const SETTLE_PARALLEL = 500;

/** The entry's payload with its block as a top-level `block_number` (the relays' filter reads it); the indexer's payloads have it already. */
function withBlock(entry: { block: number; payload?: unknown }): unknown {
  const payload = entry.payload as Record<string, unknown>;
  return Object.hasOwn(payload, 'block_number') ? payload : { ...payload, block_number: entry.block };
}
