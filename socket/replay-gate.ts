/**
 * Bounds the history reads running at once on a replica. After a deploy or a network blip
 * every client rejoins with last_seq within a second; without a bound each read holds its
 * events in memory at the same time. Waiters run in arrival order.
 */
export class ReplayGate {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly limit: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running++;
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      // the slot passes straight to the next waiter, so `running` only drops when none wait
      if (next) next();
      else this.running--;
    }
  }

  get queued(): number {
    return this.waiting.length;
  }
}
