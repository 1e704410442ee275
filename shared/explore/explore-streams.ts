import type { DataSource } from 'typeorm';
import { topics, type EventPublisher } from '../events';
import type { Config } from '../platform/config';
import { ServiceUnavailableError } from '../platform/errors';
import type { JobQueue } from '../platform/queue';
import type { Redis } from '../platform/redis';
import { hashStreamToken, StreamTokens } from '../platform/stream-tokens';
import type { ExploreFeed, SnapshotBlock } from './explore-feed';
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

/** How many entries one fan-out turn reads, and how many token publishes it runs at once. */
const FANOUT_READ = 200;
const FANOUT_PARALLEL = 200;
/** One turn holds the subject's lock at most about this long (well under the lock's TTL), then lets others in. */
const FANOUT_TURN_MS = 3_000;

/**
 * The stream machinery after the mint. The indexer appends each event of a subject to the
 * subject's outbox once (`append`), whatever the number of streams; the workers open streams
 * (`open`) and fan the outbox out to the subject's watchers (`fanout`). Opening and fanning out
 * hold the subject's lock, which makes this rule hold: a watcher hears each event above its
 * snapshot's block exactly once, in chain order, after its snapshot. (A snapshot may be read
 * before or after an event's commit: the watcher's snapshot block decides whether the event is
 * in it or is sent after it; the outbox keeps chain order, rollbacks included.)
 */
export class ExploreStreamHub {
  private readonly watchers: ExploreWatchers;
  private readonly lock: FeedLock;
  private readonly outbox: FeedOutbox;

  constructor(private readonly deps: { db: DataSource; redis: Redis; config: Config; events: EventPublisher }) {
    this.watchers = new ExploreWatchers(deps.redis, deps.config.REDIS_PREFIX);
    this.lock = new FeedLock(deps.redis, deps.config.REDIS_PREFIX);
    this.outbox = new FeedOutbox(deps.redis, this.watchers);
  }

  /**
   * The indexer's half: appends a subject's events (or a rollback) in chain order, once each.
   * Answers the last entry's id and the subject's watcher count; with watchers, the caller asks
   * a worker to fan out (`exploreStreamFanoutJob`).
   */
  append(feed: ExploreFeedName, chainId: number, subject: string, entries: readonly OutboxEntry[]): Promise<{ id: string | null; watchers: number }> {
    return this.outbox.append(feed, chainId, subject, entries);
  }

  /** Opens one minted stream: snapshot, watcher from its block, snapshot published (once per token), then what the outbox holds past it. */
  async open(feed: ExploreFeed, p: { chain_id: number; subject: string; token_hash: string; expires_at_ms: number }): Promise<void> {
    if (p.expires_at_ms <= Date.now()) return;
    const subject = p.subject;
    const more = await this.lock.with(lockName(feed.name, p.chain_id, subject), async () => {
      const snap = await feed.snapshot(this.deps.db, p.chain_id, p.subject);
      // Registered before the publish: a crash between the two leaves a watcher whose retry
      // re-registers it at the retry's snapshot and publishes that one.
      await this.watchers.watch(feed.name, p.chain_id, subject, p.token_hash, p.expires_at_ms, snap.block.number);
      await feed.publishSnapshot(this.deps.events, p.token_hash, snap, 'join', 'snapshot.open');
      // An event committed after the snapshot may have been appended while nobody watched: send it now.
      return this.drain(feed, p.chain_id, subject, Date.now() + FANOUT_TURN_MS);
    });
    if (more) await this.fanout(feed, p.chain_id, subject);
  }

  /**
   * Sends the subject's outbox, in order, to its watchers: an event to each watcher whose
   * snapshot is older than it; a rollback as the notice and a fresh snapshot (reason `reorg`) to
   * every watcher, which then follows on from that snapshot's block. Idempotency keys name each
   * send once, so a fan-out retried after a crash sends nothing twice.
   */
  async fanout(feed: ExploreFeed, chainId: number, subject: string): Promise<void> {
    for (;;) {
      const more = await this.lock.with(lockName(feed.name, chainId, subject), () => this.drain(feed, chainId, subject, Date.now() + FANOUT_TURN_MS));
      if (!more) return;
    }
  }

  /** One turn under the lock; true when entries are left for another turn. */
  private async drain(feed: ExploreFeed, chainId: number, subject: string, until: number): Promise<boolean> {
    for (;;) {
      const batch = await this.outbox.read(feed.name, chainId, subject, FANOUT_READ);
      if (batch.length === 0) return false;
      const watching = await this.watchers.list(feed.name, chainId, subject);
      const topic = feed.name === 'clob' ? topics.exploreClobStream : topics.exploreLoanStream;
      let snap: { block: SnapshotBlock } | null = null;
      for (const { entry } of batch) {
        if (entry.rollback) {
          if (watching.length === 0) continue;
          snap ??= await feed.snapshot(this.deps.db, chainId, subject);
          const fresh = snap;
          await inChunks(watching, async (w) => {
            await feed.publishRollback(this.deps.events, w.tokenHash, chainId, subject, entry.rollback, `rollback.${entry.key}`);
            await feed.publishSnapshot(this.deps.events, w.tokenHash, fresh, 'reorg', `snapshot.${entry.key}`);
            await this.watchers.advance(feed.name, chainId, subject, w.tokenHash, fresh.block.number);
            w.fromBlock = fresh.block.number;
          });
          continue;
        }
        const to = watching.filter((w) => entry.block > w.fromBlock);
        await inChunks(to, (w) =>
          this.deps.events.publish(topic(w.tokenHash) as never, entry.event as never, entry.payload as never, { idempotencyKey: entry.key }),
        );
      }
      await this.outbox.ack(feed.name, chainId, subject, batch[batch.length - 1].id);
      if (batch.length < FANOUT_READ) return false;
      if (Date.now() > until) return true;
    }
  }
}

/** Runs `fn` over `items`, up to FANOUT_PARALLEL at once (one topic each, so each topic still hears entries in order). */
async function inChunks<T>(items: readonly T[], fn: (item: T) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < items.length; i += FANOUT_PARALLEL) await Promise.all(items.slice(i, i + FANOUT_PARALLEL).map(fn));
}
