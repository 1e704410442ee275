import type { DataSource } from 'typeorm';
import type { EventPublisher } from '../events';
import type { TopicKey, TopicRef } from '../platform/event-bus';
import type { StreamKind } from '../platform/stream-tokens';
import type { ExploreFeedName } from './explore-watchers';

/** The indexed block a snapshot reflects: every event at or below it is in the snapshot, none above. */
export interface SnapshotBlock {
  number: number;
  hash: string | null;
  /** ISO 8601 UTC; null before the indexer has stored a block. */
  time: string | null;
}

/** Why a snapshot was sent: the stream was opened, or a reorg undid events the client had. */
export type SnapshotReason = 'join' | 'reorg';

/** What a rollback undid, as the feed tells its watchers before the fresh snapshot. */
export interface RollbackNotice {
  ancestor_block: number;
  ancestor_hash: string | null;
}

/**
 * Where a feed publishes: a stream token's own topic (its join snapshot, the topic's only event)
 * or the subject's feed topic (every later event, rollbacks and reorg snapshots, once for all the
 * subject's streams; the socket tier relays them to each stream's topic).
 */
export type FeedTopicRef = TopicRef<'explore_clob_stream' | 'explore_loan_stream'>;

/**
 * The feed topic of one subject: the stream kind's events under a key no client-visible name
 * parses to (`explore_<feed>_feed:<chain>:<subject>`), so nobody can join it; the socket tier
 * follows it for the streams relayed from it.
 */
export function feedTopic(feed: 'clob', chainId: number, subject: string): TopicRef<'explore_clob_stream'>;
export function feedTopic(feed: 'loan', chainId: number, subject: string): TopicRef<'explore_loan_stream'>;
export function feedTopic(feed: ExploreFeedName, chainId: number, subject: string): FeedTopicRef;
export function feedTopic(feed: ExploreFeedName, chainId: number, subject: string): FeedTopicRef {
  const kind = feed === 'clob' ? 'explore_clob_stream' : 'explore_loan_stream';
  return { kind, key: `explore_${feed}_feed:${chainId}:${subject.toLowerCase()}` as TopicKey };
}

/**
 * One live Explore feed (CLOB, loans): how its snapshot is read and how it is sent. The stream
 * machinery (explore-streams.ts) is the same for all: mint a token through the gate, open the
 * stream in a worker (snapshot to the token's topic, under the subject's lock), publish later
 * chain events once to the subject's feed topic, from which the socket tier relays them to each
 * stream past its snapshot block, and publish a fresh snapshot there after a reorg. A feed is exported by
 * its domain and listed in `EXPLORE_FEEDS` (workers/explore/explore-feeds.ts).
 */
export interface ExploreFeed<S extends { block: SnapshotBlock } = { block: SnapshotBlock }> {
  name: ExploreFeedName;
  /** The stream-token kind its tokens carry; its topic is `explore_<name>_stream:<token>`. */
  streamKind: StreamKind;
  /** The topic a client joins with its raw token. */
  topic(token: string): string;
  /** The subject's state at the indexed head, read in one transaction with the block it reflects. */
  snapshot(db: DataSource, chainId: number, subject: string): Promise<S>;
  /** The topic of one stream token, from its sha-256. */
  tokenTopic(tokenHash: string): FeedTopicRef;
  /** Sends a snapshot: a stream's join snapshot to its token topic, a reorg snapshot to the subject's feed topic. */
  publishSnapshot(events: EventPublisher, to: FeedTopicRef, snapshot: S, reason: SnapshotReason, idempotencyKey: string): Promise<void>;
  /** Tells the subject's streams, on its feed topic, that events above the ancestor were undone (a fresh snapshot follows). */
  publishRollback(events: EventPublisher, to: FeedTopicRef, chainId: number, subject: string, notice: RollbackNotice, idempotencyKey: string): Promise<void>;
}
