import type { Logger } from '../../shared/platform/logging';
import type { Metrics } from '../../shared/platform/metrics';
import type { FailureCounts, ProviderFailureClass, ProviderState } from '../../shared/indexed';

export type { ProviderFailureClass, ProviderState };

/**
 * What a network's JSON-RPC providers did wrong, by class: a metric per class, one log line per
 * class and minute (with the count since the last one) rather than one per request, and a
 * snapshot per URL for `indexer_status.provider`.
 */
const MINUTE_MS = 60_000;

/** A URL without credentials or path secrets (providers put API keys in the path). */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}`;
  } catch {
    return 'rpc';
  }
}

export class ProviderStats {
  private readonly perUrl: { requests: number; failures: FailureCounts }[];
  private readonly lastLogged = new Map<ProviderFailureClass, number>();
  private readonly sinceLog = new Map<ProviderFailureClass, number>();
  /** Timestamps of recent failures by class, for `last_minute`. */
  private readonly recent: { at: number; cls: ProviderFailureClass }[] = [];
  private readonly counter;

  constructor(
    private readonly chainId: number,
    private readonly urls: readonly string[],
    private readonly logger: Logger,
    metrics?: Metrics,
    private readonly now: () => number = Date.now,
  ) {
    this.perUrl = urls.map(() => ({ requests: 0, failures: {} }));
    this.counter = metrics?.counter('rfq_indexer_provider_failures_total', 'JSON-RPC provider failures by class', ['chain_id', 'class']);
  }

  request(urlIndex: number): void {
    if (this.perUrl[urlIndex]) this.perUrl[urlIndex].requests++;
  }

  /** Counts one failure; logs the class at most once a minute, with how many there were since its last line. */
  failure(cls: ProviderFailureClass, urlIndex: number | null, detail: Record<string, unknown> = {}): void {
    const t = this.now();
    this.counter?.inc({ chain_id: String(this.chainId), class: cls });
    if (urlIndex !== null && this.perUrl[urlIndex]) {
      const f = this.perUrl[urlIndex].failures;
      f[cls] = (f[cls] ?? 0) + 1;
    }
    this.recent.push({ at: t, cls });
    while (this.recent.length > 0 && this.recent[0].at < t - MINUTE_MS) this.recent.shift();
    const count = (this.sinceLog.get(cls) ?? 0) + 1;
    const last = this.lastLogged.get(cls);
    if (last !== undefined && t - last < MINUTE_MS) {
      this.sinceLog.set(cls, count);
      return;
    }
    this.lastLogged.set(cls, t);
    this.sinceLog.set(cls, 0);
    this.logger.warn(
      { class: cls, count, url_index: urlIndex, host: urlIndex === null ? null : redactUrl(this.urls[urlIndex] ?? ''), ...detail },
      `rpc provider: ${cls.replace('_', ' ')} (${count} since the last line of this class; at most one line a minute)`,
    );
  }

  snapshot(endpoints: readonly { failures: number; downUntil: number }[]): ProviderState {
    const t = this.now();
    const lastMinute: FailureCounts = {};
    for (const r of this.recent) if (r.at >= t - MINUTE_MS) lastMinute[r.cls] = (lastMinute[r.cls] ?? 0) + 1;
    return {
      urls: this.urls.map((_url, i) => {
        const ep = endpoints[i];
        const out = ep !== undefined && ep.downUntil > t;
        return {
          url_index: i,
          state: out ? 'sitting_out' : 'serving',
          back_at: out ? new Date(ep.downUntil).toISOString() : null,
          failures_in_a_row: ep?.failures ?? 0,
          requests: this.perUrl[i].requests,
          failures: { ...this.perUrl[i].failures },
        };
      }),
      last_minute: lastMinute,
    };
  }
}
