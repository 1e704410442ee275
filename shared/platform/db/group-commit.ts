/**
 * Group commit: rows written by concurrent requests go to the database together, as one
 * multi-row statement (one round trip, one commit, one WAL flush), and each request is answered
 * when the statement holding its row has committed. Durability is unchanged: nobody hears
 * "stored" before the commit that stores it.
 *
 * Batching is by arrival, not by a timer: a row that arrives while fewer than `maxInFlight`
 * statements are running goes out on the next turn of the event loop with whatever arrived in
 * the same turn; rows arriving while the pipe is full wait for the next free slot and go
 * together. An idle service therefore adds no delay, and a busy one commits ever larger batches.
 *
 * A failed batch is retried one row at a time, so one bad row fails only its own request and
 * every other request gets the answer it would have had alone.
 */
export class GroupCommit<T, R> {
  private waiting: { item: T; resolve: (r: R) => void; reject: (err: unknown) => void }[] = [];
  private inFlight = 0;
  private scheduled = false;

  constructor(
    private readonly writer: {
      /** Writes every item in one statement; answers one result per item, in order. */
      many: (items: T[]) => Promise<R[]>;
      /** Writes one item on its own (the fallback of a failed batch). */
      one: (item: T) => Promise<R>;
    },
    private readonly opts: { maxBatch: number; maxInFlight: number } = { maxBatch: 256, maxInFlight: 2 },
  ) {}

  write(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight >= this.opts.maxInFlight || this.waiting.length === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  private flush(): void {
    while (this.inFlight < this.opts.maxInFlight && this.waiting.length > 0) {
      const batch = this.waiting.splice(0, this.opts.maxBatch);
      this.inFlight++;
      void this.send(batch).finally(() => {
        this.inFlight--;
        this.schedule();
      });
    }
  }

  private async send(batch: { item: T; resolve: (r: R) => void; reject: (err: unknown) => void }[]): Promise<void> {
    if (batch.length === 1) {
      const [only] = batch;
      await this.writer.one(only.item).then(only.resolve, only.reject);
      return;
    }
    let results: R[];
    try {
      results = await this.writer.many(batch.map((b) => b.item));
    } catch {
      // Which row failed is unknown: each goes again alone and answers for itself.
      await Promise.all(batch.map((b) => this.writer.one(b.item).then(b.resolve, b.reject)));
      return;
    }
    batch.forEach((b, i) => b.resolve(results[i]));
  }
}
