import type { DataSource } from 'typeorm';
import type { EventPublisher } from '../events';
import type { Config } from '../platform/config';
import { ServiceUnavailableError } from '../platform/errors';
import type { JobQueue } from '../platform/queue';
import type { Redis } from '../platform/redis';
import { hashStreamToken, StreamTokens } from '../platform/stream-tokens';
import type { ExploreFeed, RollbackNotice } from './explore-feed';
import { exploreStreamOpenJob } from './explore.jobs';
import { ExploreWatchers, type ExploreFeedName } from './explore-watchers';
import { FeedLock } from './feed-lock';

/** The answer of `POST /api/explore/.../stream`. */
export interface MintedStream {
  stream_token: string;
  topic: string;
  expires_in: number;
}

/** A chain event bound for a subject's watchers: its block, and how to send it to one watcher. */
export interface FeedItem {
  block_number: number;
  send(tokenHash: string): Promise<unknown>;
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

/**
 * The publishing half, used by workers (opening streams) and the indexer (delivering chain
 * events, resending snapshots after a reorg). Every step that reads or moves a watcher holds
 * the subject's lock, which makes this rule hold: a watcher hears each event above its
 * snapshot's block exactly once, in chain order, after its snapshot. (The indexer publishes
 * after its commit; without the lock a snapshot read after a commit but published before that
 * commit's events would make the watcher miss nothing but hear them twice, or, read before it
 * and published after, miss them.)
 */
export class ExploreStreamHub {
  private readonly watchers: ExploreWatchers;
  private readonly lock: FeedLock;

  constructor(private readonly deps: { db: DataSource; redis: Redis; config: Config; events: EventPublisher }) {
    this.watchers = new ExploreWatchers(deps.redis, deps.config.REDIS_PREFIX);
    this.lock = new FeedLock(deps.redis, deps.config.REDIS_PREFIX);
  }

  /** Opens one minted stream: snapshot, watcher from its block, snapshot published (once per token). */
  async open(feed: ExploreFeed, p: { chain_id: number; subject: string; token_hash: string; expires_at_ms: number }): Promise<void> {
    if (p.expires_at_ms <= Date.now()) return;
    await this.lock.with(lockName(feed.name, p.chain_id, p.subject), async () => {
      const snap = await feed.snapshot(this.deps.db, p.chain_id, p.subject);
      // Registered before the publish: a crash between the two leaves a watcher whose retry
      // re-registers it at the retry's snapshot and publishes that one.
      await this.watchers.watch(feed.name, p.chain_id, p.subject, p.token_hash, p.expires_at_ms, snap.block.number);
      await feed.publishSnapshot(this.deps.events, p.token_hash, snap, 'join', 'snapshot.open');
    });
  }

  /** Sends chain events (in chain order) to the subject's watchers whose snapshot is older than each event. */
  async deliver(feed: ExploreFeedName, chainId: number, subject: string, items: readonly FeedItem[]): Promise<void> {
    if (items.length === 0) return;
    await this.lock.with(lockName(feed, chainId, subject), async () => {
      const watching = await this.watchers.list(feed, chainId, subject);
      if (watching.length === 0) return;
      for (const item of items) for (const w of watching) if (item.block_number > w.fromBlock) await item.send(w.tokenHash);
    });
  }

  /**
   * After a rollback above `notice.ancestor_block`: each watcher hears the rollback, then a
   * fresh snapshot (reason `reorg`) of the rolled-back state, and follows on from its block.
   * `key` names the rollback once, so a repeated call sends nothing twice.
   */
  async resnapshot(feed: ExploreFeed, chainId: number, subject: string, notice: RollbackNotice, key: string): Promise<void> {
    await this.lock.with(lockName(feed.name, chainId, subject), async () => {
      const watching = await this.watchers.list(feed.name, chainId, subject);
      if (watching.length === 0) return;
      const snap = await feed.snapshot(this.deps.db, chainId, subject);
      for (const w of watching) {
        await feed.publishRollback(this.deps.events, w.tokenHash, chainId, subject, notice, `rollback.${key}`);
        await feed.publishSnapshot(this.deps.events, w.tokenHash, snap, 'reorg', `snapshot.${key}`);
        await this.watchers.advance(feed.name, chainId, subject, w.tokenHash, snap.block.number);
      }
    });
  }
}
