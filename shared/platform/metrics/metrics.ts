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

  gauge(name: string, help: string, labelNames: string[] = []): Gauge<string> {
    return this.once(name, () => new Gauge({ name, help, labelNames, registers: [this.registry] }));
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
