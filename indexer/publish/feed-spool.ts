import { exploreStreamFanoutJob, type ExploreFeedName, type ExploreStreamHub, type OutboxEntry } from '../../shared/explore';
import type { Logger } from '../../shared/platform/logging';
import type { JobQueue } from '../../shared/platform/queue';

/** Tasks waiting behind the tail loop at most; past it a task is dropped with a warning (the tables stay the record). */
const MAX_PENDING = 10_000;
/** Tries of one Redis step before it is given up: about 25 s of backoff in all. */
const ATTEMPTS = 9;

/**
 * Explore's hand-off from the indexer: each subject's events are appended once to its outbox
 * (ExploreStreamHub.append) and, when someone watches it, a fan-out job is enqueued. Tasks run
 * one at a time in the order given, behind the tail loop (which never waits for them), so
 * indexing costs the same with no streams or with thousands; a Redis blip is retried with
 * backoff rather than losing an event.
 */
export class FeedSpool {
  private tail: Promise<void> = Promise.resolve();
  private pending = 0;

  constructor(
    private readonly hub: ExploreStreamHub,
    private readonly queue: JobQueue,
    private readonly logger: Logger,
  ) {}

  /** Runs `task` after every task handed over before it; never throws to the caller. */
  later(what: string, task: () => Promise<unknown>): void {
    if (this.pending >= MAX_PENDING) {
      this.logger.warn({ what, pending: this.pending }, 'explore hand-off backlog full; dropped a live batch (the API serves the data)');
      return;
    }
    this.pending++;
    this.tail = this.tail
      .then(async () => {
        await task();
      })
      .catch((err: unknown) => this.logger.warn({ what, err: (err as Error).message }, 'live publish failed; the data is stored and the API serves it'))
      .finally(() => this.pending--);
  }

  /**
   * Whether anyone watches the subject now. Asked after the batch's commit: a stream whose
   * watcher is recorded after this answer reads its snapshot after it too, so a batch skipped
   * on a 0 is in that snapshot.
   */
  async watched(feed: ExploreFeedName, chainId: number, subject: string): Promise<boolean> {
    return (await retry(() => this.hub.watching(feed, chainId, subject))) > 0;
  }

  /** Appends a subject's entries once, then asks the workers to fan them out if anyone watches. */
  async append(feed: ExploreFeedName, chainId: number, subject: string, entries: readonly OutboxEntry[]): Promise<void> {
    const { id, watchers } = await retry(() => this.hub.append(feed, chainId, subject, entries));
    if (id === null || watchers === 0) return;
    await retry(() => this.queue.enqueue(exploreStreamFanoutJob, { feed, chain_id: chainId, subject, entry_id: id }));
  }

  /** Resolves once every task handed over so far has run. */
  async idle(): Promise<void> {
    for (let seen = this.tail; ; seen = this.tail) {
      await seen;
      if (seen === this.tail) return;
    }
  }
}

async function retry<T>(step: () => Promise<T>): Promise<T> {
  for (let attempt = 1, pause = 50; ; attempt++, pause = Math.min(pause * 2, 5_000)) {
    try {
      return await step();
    } catch (err) {
      if (attempt >= ATTEMPTS) throw err;
      await new Promise((r) => setTimeout(r, pause));
    }
  }
}
