import { randomUUID } from 'node:crypto';
import { randomAddress } from '../support/fixtures';
import { intents, quoteBody, STRATEGY_ROWS } from '../support/quotes';

/** A quote the API answered 201 for, with what the taker alone may know. */
export interface CreatedQuote {
  id: string;
  streamToken: string;
  taker: string;
  referrer: string;
  salt: string;
}

export interface LoadOutcome {
  sent: number;
  created: CreatedQuote[];
  /** 503s carrying Retry-After and the error body. */
  unavailable: number;
  /** Any other 5xx, or a 503 without Retry-After or the error body: must stay empty. */
  other5xx: string[];
  /** Any other answer (4xx, a refused or hung request): must stay empty. */
  otherFailures: string[];
}

export interface LoadOptions {
  /** Requests to send in all; the load stops after them. */
  requests: number;
  /** Pause between two sends (a steady rate, not a burst). */
  intervalMs: number;
  /** Most requests in flight at once. */
  maxInFlight?: number;
  expiresIn: number;
  /** The pair (CLOB) contract every quote's legs name. */
  pair: string;
  /** Each request gives up after this long; a hang counts as a failure. */
  timeoutMs?: number;
  /**
   * Send each create with its own `Idempotency-Key`, as a client that wants retries does: a
   * balancer may then send it again to another replica when the first died with it in flight.
   */
  idempotencyKeys?: boolean;
}

/**
 * A steady stream of quote creates against one API, bounded in count and time, 127.0.0.1
 * only. Faults are injected alongside it by waiting on `answered(n)`: a condition on the load's
 * own progress, so a fault lands in the middle of the traffic on any machine speed.
 */
export class QuoteLoad {
  readonly outcome: LoadOutcome = { sent: 0, created: [], unavailable: 0, other5xx: [], otherFailures: [] };
  private answeredCount = 0;
  private readonly waiters: { n: number; resolve: () => void }[] = [];

  constructor(
    private readonly apiUrl: string,
    private readonly opts: LoadOptions,
  ) {}

  get answered(): number {
    return this.answeredCount;
  }

  /** Resolves once `n` requests in all have been answered (or the load has finished). */
  waitAnswered(n: number): Promise<void> {
    if (this.answeredCount >= n) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ n, resolve }));
  }

  /** Runs the load to its end; `alongside` (the fault) runs concurrently and is awaited too. */
  async run(alongside: (load: QuoteLoad) => Promise<void> = async () => undefined): Promise<LoadOutcome> {
    const fault = alongside(this);
    const inFlight = new Set<Promise<void>>();
    for (let i = 0; i < this.opts.requests; i++) {
      while (inFlight.size >= (this.opts.maxInFlight ?? 16)) await Promise.race(inFlight);
      const p = this.one().finally(() => inFlight.delete(p));
      inFlight.add(p);
      await new Promise((r) => setTimeout(r, this.opts.intervalMs));
    }
    await Promise.all(inFlight);
    this.answeredCount = Number.MAX_SAFE_INTEGER;
    this.wake();
    await fault;
    return this.outcome;
  }

  private async one(): Promise<void> {
    const taker = randomAddress();
    const referrer = randomAddress();
    this.outcome.sent++;
    const legs = STRATEGY_ROWS[this.outcome.sent % STRATEGY_ROWS.length].legs;
    const body = quoteBody(taker, legs, { referrer, expires_in: this.opts.expiresIn, intents: intents(legs, { pair: this.opts.pair }) });
    try {
      const res = await fetch(`${this.apiUrl}/api/quote`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(this.opts.idempotencyKeys ? { 'idempotency-key': randomUUID() } : {}) },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(this.opts.timeoutMs ?? 15_000),
      });
      const text = await res.text();
      this.record(res.status, res.headers.get('retry-after'), text, { taker, referrer });
    } catch (err) {
      this.outcome.otherFailures.push(`request failed: ${(err as Error).message}`);
    } finally {
      this.answeredCount++;
      this.wake();
    }
  }

  private record(status: number, retryAfter: string | null, text: string, who: { taker: string; referrer: string }): void {
    let json: Record<string, unknown> | null;
    try {
      json = JSON.parse(text) as Record<string, unknown>;
    } catch {
      json = null;
    }
    if (status === 201 && json) {
      const quote = json.quote as { id: string; taker_salt: string };
      this.outcome.created.push({ id: quote.id, streamToken: String(json.stream_token), salt: quote.taker_salt, ...who });
    } else if (
      status === 503 &&
      json &&
      typeof json.error === 'string' &&
      typeof json.code === 'string' &&
      typeof json.request_id === 'string' &&
      Number(retryAfter) >= 1
    ) {
      this.outcome.unavailable++;
    } else if (status >= 500) {
      this.outcome.other5xx.push(`${status} retry-after=${retryAfter}: ${text.slice(0, 300)}`);
    } else {
      this.outcome.otherFailures.push(`${status}: ${text.slice(0, 300)}`);
    }
  }

  private wake(): void {
    for (let i = this.waiters.length - 1; i >= 0; i--) {
      if (this.answeredCount >= this.waiters[i].n) this.waiters.splice(i, 1)[0].resolve();
    }
  }
}
