import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * One Prometheus registry per process, shared by every role it runs. Metrics are
 * created on first use so a role that never touches one does not export it.
 */
export class Metrics {
  readonly registry = new Registry();
  private readonly made = new Map<string, unknown>();

  constructor(defaults = true) {
    if (defaults) collectDefaultMetrics({ register: this.registry });
  }

  counter(name: string, help: string, labelNames: string[] = []): Counter<string> {
    return this.once(name, () => new Counter({ name, help, labelNames, registers: [this.registry] }));
  }

  /**
   * `collect`, when given, runs on each scrape before the gauge is read: for values that live
   * elsewhere (Redis) and are cheaper to read when asked for than to track.
   */
  gauge(name: string, help: string, labelNames: string[] = [], collect?: (this: Gauge<string>) => Promise<void>): Gauge<string> {
    return this.once(name, () => new Gauge({ name, help, labelNames, registers: [this.registry], ...(collect ? { collect } : {}) }));
  }

  histogram(name: string, help: string, labelNames: string[] = [], buckets?: number[]): Histogram<string> {
    return this.once(name, () => new Histogram({ name, help, labelNames, buckets, registers: [this.registry] }));
  }

  private once<T>(name: string, make: () => T): T {
    let m = this.made.get(name) as T | undefined;
    if (!m) {
      m = make();
      this.made.set(name, m);
    }
    return m;
  }
}
