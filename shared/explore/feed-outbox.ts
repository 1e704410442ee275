import type { JsonValue } from '../events';
import { luaScript, type Redis } from '../platform/redis';
import type { RollbackNotice } from './explore-feed';
import type { ExploreFeedName, ExploreWatchers } from './explore-watchers';

/**
 * One entry of a subject's outbox: a chain event to send as `event` with `payload` (`block` is
 * the block it belongs to, `key` its idempotency key), or a rollback (`rollback`) after which
 * every watcher hears the notice and a fresh snapshot.
 */
export type OutboxEntry =
  | { block: number; key: string; event: string; payload: JsonValue; rollback?: undefined }
  | { block: number; key: string; rollback: RollbackNotice; event?: undefined; payload?: undefined };

/** An entry as read back, with its Redis stream id. */
export interface OutboxRead {
  id: string;
  entry: OutboxEntry;
}

/** How many entries a subject's outbox keeps at most (approximately): the fan-out trims what it sent. */
export const OUTBOX_MAX_ENTRIES = 100_000;
/** An outbox nobody appends to or drains expires after this. */
const OUTBOX_TTL_MS = 24 * 3600 * 1000;

/** Appends entries; answers the last id and the subject's watcher count (shared/platform/redis/lua/outbox-append-3.lua). */
const APPEND = luaScript('outbox-append');

/** The entries after the cursor, oldest first (shared/platform/redis/lua/outbox-read-2.lua). */
const READ = luaScript('outbox-read');

/** Moves the cursor and drops what it passed (shared/platform/redis/lua/outbox-ack-2.lua). */
const ACK = luaScript('outbox-ack');

/**
 * A subject's outbox: the indexer appends each event of a subject (one CLOB, one loan network)
 * once, whatever the number of streams watching it; the fan-out (ExploreStreamHub.fanout, in the
 * workers) reads it in order from its cursor and sends each entry to the watchers past their
 * snapshot's block. A Redis stream with the subject's watchers' hash tag, so the append script and
 * the watcher count share a cluster slot.
 */
export class FeedOutbox {
  constructor(
    private readonly redis: Redis,
    private readonly watchers: ExploreWatchers,
  ) {}

  private keys(feed: ExploreFeedName, chainId: number, subject: string): [string, string] {
    return [this.watchers.key(feed, chainId, subject, 'outbox'), this.watchers.key(feed, chainId, subject, 'cursor')];
  }

  /** Appends entries in order; answers the last entry's id and how many watchers the subject has (0: nobody to tell now). */
  async append(feed: ExploreFeedName, chainId: number, subject: string, entries: readonly OutboxEntry[]): Promise<{ id: string | null; watchers: number }> {
    if (entries.length === 0) return { id: null, watchers: 0 };
    const [outbox, cursor] = this.keys(feed, chainId, subject);
    const tokens = this.watchers.key(feed, chainId, subject, 'tokens');
    const args = [OUTBOX_MAX_ENTRIES, OUTBOX_TTL_MS, ...entries.map((e) => JSON.stringify(e))];
    const [id, watchers] = (await APPEND.run(this.redis, [outbox, cursor, tokens], args)) as [string, number];
    return { id, watchers: Number(watchers) };
  }

  /** Up to `count` entries after the cursor, oldest first. */
  async read(feed: ExploreFeedName, chainId: number, subject: string, count: number): Promise<OutboxRead[]> {
    const raw = (await READ.run(this.redis, this.keys(feed, chainId, subject), [count])) as [string, string[]][];
    return raw.map(([id, fields]) => ({ id, entry: JSON.parse(fields[fields.indexOf('j') + 1]) as OutboxEntry }));
  }

  /** Everything up to `id` was sent. */
  async ack(feed: ExploreFeedName, chainId: number, subject: string, id: string): Promise<void> {
    await ACK.run(this.redis, this.keys(feed, chainId, subject), [id, OUTBOX_TTL_MS]);
  }
}
