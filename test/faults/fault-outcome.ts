import { topics } from '../../shared/events';
import { EventHistory } from '../../shared/platform/events';
import { hashStreamToken } from '../../shared/platform/stream-tokens';
import { assertNoTakerIdentity } from '../support/events';
import type { FeedRecorder } from './feed-recorder';
import type { Stack } from './fault-stack';
import type { CreatedQuote, LoadOutcome } from './quote-load';

const FINAL_STATES = new Set(['expired', 'filled', 'cancelled']);

export interface FaultSummary {
  fault: string;
  sent: number;
  created: number;
  unavailable: number;
  other5xx: number;
  announced: number;
  finalized: number;
  lost: number;
  duplicates: number;
}

/** The one-line summary a fault run prints (docs/FAULTS.md records these lines). */
export function summaryLine(s: FaultSummary): string {
  return (
    `[fault] ${s.fault}: sent=${s.sent} 201=${s.created} 503=${s.unavailable} other_5xx=${s.other5xx} ` +
    `announced=${s.announced} finalized=${s.finalized} lost=${s.lost} duplicates=${s.duplicates}`
  );
}

/** Gaps and duplicate seqs each feed has seen so far, to count what one fault added. */
export function feedCounters(feeds: FeedRecorder[]): { gaps: number; duplicates: number } {
  return { gaps: feeds.reduce((n, f) => n + f.gaps, 0), duplicates: feeds.reduce((n, f) => n + f.duplicates, 0) };
}

export function allFeeds(stack: Stack): FeedRecorder[] {
  return [...stack.feeds.requests, stack.feeds.makerTopic];
}

interface QuoteProgress {
  /** Per announcing feed, how many times the quote's rfq_request arrived there. */
  announcements: number[];
  state: string | null;
  resultDelivered: boolean;
}

/**
 * Waits (polling, bounded) until every quote that got a 201 was announced on every maker feed,
 * reached a final state and had its rfq_result published to its taker; then counts. A quote that
 * never gets there within `timeoutMs` is lost. `mustFill` quotes were settled on chain: their
 * final state must be `filled`.
 */
export async function awaitOutcome(
  stack: Stack,
  fault: string,
  load: LoadOutcome,
  extra: CreatedQuote[],
  before: { gaps: number; duplicates: number },
  opts: { timeoutMs: number; mustFill?: Set<string> },
): Promise<{ summary: FaultSummary; unfinished: ({ id: string } & QuoteProgress)[] }> {
  const quotes = [...load.created, ...extra];
  const history = new EventHistory(stack.env.redis, stack.env.config);
  const progress = new Map<string, QuoteProgress>(quotes.map((q) => [q.id, { announcements: [], state: null, resultDelivered: false }]));
  // Every feed carries each new quote's rfq_request: the request feeds and the premium maker's own topic.
  const feeds = allFeeds(stack);
  const done = (id: string, p: QuoteProgress) =>
    p.announcements.length === feeds.length &&
    p.announcements.every((n) => n >= 1) &&
    p.resultDelivered &&
    p.state !== null &&
    (opts.mustFill?.has(id) ? p.state === 'filled' : FINAL_STATES.has(p.state));

  const until = Date.now() + opts.timeoutMs;
  for (;;) {
    const counts = feeds.map((f) => {
      const m = new Map<string, number>();
      for (const p of f.named('rfq_request')) m.set(String(p.quote_id), (m.get(String(p.quote_id)) ?? 0) + 1);
      return m;
    });
    const rows: { id: string; state: string }[] = await stack.env.db.query(`SELECT id, state FROM quotes WHERE id = ANY($1)`, [quotes.map((q) => q.id)]);
    const stateOf = new Map(rows.map((r) => [r.id, r.state]));
    for (const q of quotes) {
      const p = progress.get(q.id)!;
      p.announcements = counts.map((m) => m.get(q.id) ?? 0);
      p.state = stateOf.get(q.id) ?? null;
      if (!p.resultDelivered && p.state !== null && FINAL_STATES.has(p.state)) {
        const read = await history.readSince(topics.rfqStream(hashStreamToken(q.streamToken)).key, 0);
        p.resultDelivered = read.events.some((e) => e.event === 'rfq_result');
      }
    }
    if ([...progress].every(([id, p]) => done(id, p)) || Date.now() > until) break;
    await new Promise((r) => setTimeout(r, 50));
  }

  const after = feedCounters(allFeeds(stack));
  const entries = [...progress];
  const announced = entries.filter(([, p]) => p.announcements.length === feeds.length && p.announcements.every((n) => n >= 1)).length;
  const finalized = entries.filter(([id, p]) => p.resultDelivered && p.state !== null && (opts.mustFill?.has(id) ? p.state === 'filled' : FINAL_STATES.has(p.state))).length;
  const extraDeliveries = entries.reduce((n, [, p]) => n + p.announcements.reduce((m, c) => m + Math.max(0, c - 1), 0), 0);
  return {
    unfinished: entries.filter(([id, p]) => !done(id, p)).map(([id, p]) => ({ id, ...p })),
    summary: {
      fault,
      sent: load.sent + extra.length,
      created: quotes.length,
      unavailable: load.unavailable,
      other5xx: load.other5xx.length,
      announced,
      finalized,
      lost: entries.filter(([id, p]) => !done(id, p)).length + (after.gaps - before.gaps),
      duplicates: extraDeliveries + (after.duplicates - before.duplicates),
    },
  };
}

/** No maker-visible message of any feed carries a taker's address, raw referrer or salt. */
export function assertNoTakerLeak(stack: Stack, quotes: CreatedQuote[]): void {
  const payloads = allFeeds(stack).flatMap((f) => f.events.map((e) => e.payload));
  for (const q of quotes) assertNoTakerIdentity(payloads, { taker: q.taker, referrer: q.referrer, salt: q.salt });
}
