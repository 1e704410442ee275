import type { DataSource } from 'typeorm';
import type { EventPublisher } from '../events';
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
 * One live Explore feed (CLOB, loans): how its snapshot is read and how it is sent. The stream
 * machinery (explore-streams.ts) is the same for all: mint a token through the gate, open the
 * stream in a worker (snapshot + watcher, under the subject's lock), deliver later chain events
 * to watchers past their snapshot block, resend a snapshot after a reorg. A feed is exported by
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
  /** Sends a snapshot to one watcher's topic. */
  publishSnapshot(events: EventPublisher, tokenHash: string, snapshot: S, reason: SnapshotReason, idempotencyKey: string): Promise<void>;
  /** Tells one watcher that events above the ancestor were undone (a fresh snapshot follows). */
  publishRollback(events: EventPublisher, tokenHash: string, chainId: number, subject: string, notice: RollbackNotice, idempotencyKey: string): Promise<void>;
}
