import { topics } from '../../shared/events';
import { EventHistory } from '../../shared/platform/event-bus';
import { hashStreamToken } from '../../shared/platform/stream-tokens';
import { assertNoTakerIdentity } from '../support/events';
import type { FeedRecorder } from './feed-recorder';
import type { Stack } from './fault-stack';
import type { CreatedQuote, LoadOutcome } from './quote-load';

const FINAL_STATES = new Set(['expired', 'filled', 'cancelled']);

/**
 * The recovery bound of docs/FAULTS.md: every quote still open when its dependency came back is
 * on every maker feed within this long of that moment. The service publishes it within
 * LATE_ANNOUNCE_MS of recovery (shared/quotes/quote-notifier.ts); the rest is the socket tier
 * and this process's own event loop on a busy machine.
 */
export const RECOVERY_ANNOUNCE_BOUND_MS = 8000;

export interface FaultSummary {
  fault: string;
  sent: number;
  created: number;
  unavailable: number;
  other5xx: number;
  /** 201s that must be announced: all of them, or, for a dependency outage, those still open when it came back. */
  due: number;
  announced: number;
  /** Due announcements of quotes created before the recovery that reached a feed later than the bound. */
  late: number;
  /** Slowest due announcement of a quote created before the recovery, from the recovery to its last feed (ms); null without a recovery. */
  recoveryMs: number | null;
  finalized: number;
  lost: number;
  duplicates: number;
}

/** The one-line summary a fault run prints (docs/FAULTS.md records these lines). */
export function summaryLine(s: FaultSummary): string {
  return (
    `[fault] ${s.fault}: sent=${s.sent} 201=${s.created} 503=${s.unavailable} other_5xx=${s.other5xx} ` +
    `due=${s.due} announced=${s.announced} late=${s.late} recovery_ms=${s.recoveryMs ?? '-'} finalized=${s.finalized} lost=${s.lost} duplicates=${s.duplicates}`
  );
}

/** Gaps and duplicate seqs each feed has seen so far, to count what one fault added. */
export function feedCounters(feeds: FeedRecorder[]): { gaps: number; duplicates: number } {
  return { gaps: feeds.reduce((n, f) => n + f.gaps, 0), duplicates: feeds.reduce((n, f) => n + f.duplicates, 0) };
}

export function allFeeds(stack: Stack<unknown>): FeedRecorder[] {
  return [...stack.feeds.requests, stack.feeds.makerTopic];
}

interface QuoteProgress {
  /** Per announcing feed, how many times the quote's rfq_request arrived there. */
  announcements: number[];
  /** Per announcing feed, when the quote's rfq_request first arrived there. */
  firstAt: (number | null)[];
  state: string | null;
  expiresAt: number | null;
  createdAt: number | null;
  closedAt: number | null;
  resultDelivered: boolean;
}

/**
 * Waits (polling, bounded) until every quote that got a 201 reached a final state and had its
 * rfq_result published to its taker, and every quote due an announcement was announced on every
 * maker feed; then counts. A quote is due an announcement unless the fault was a dependency
 * outage (`recoveredAt`, when the dependency came back) and the quote was no longer open at that
 * moment (its window ended, or it was filled, during the outage): such a quote is finalized and
 * its result published, but not necessarily announced. A quote
 * that never gets there within `timeoutMs` is lost. `mustFill` quotes were settled on chain:
 * their final state must be `filled`.
 */
export async function awaitOutcome(
  stack: Stack,
  fault: string,
  load: LoadOutcome,
  extra: CreatedQuote[],
  before: { gaps: number; duplicates: number },
  opts: { timeoutMs: number; mustFill?: Set<string>; recoveredAt?: number },
): Promise<{ summary: FaultSummary; unfinished: ({ id: string } & QuoteProgress)[] }> {
  const quotes = [...load.created, ...extra];
  const history = new EventHistory(stack.env.redis, stack.env.config);
  const progress = new Map<string, QuoteProgress>(
    quotes.map((q) => [q.id, { announcements: [], firstAt: [], state: null, expiresAt: null, createdAt: null, closedAt: null, resultDelivered: false }]),
  );
  // Every feed carries each new quote's rfq_request: the request feeds and the premium maker's own topic.
  const feeds = allFeeds(stack);
  const recoveredAt = opts.recoveredAt;
  // Open at the recovery: its window had not ended, and it was not closed (filled) before.
  const due = (p: QuoteProgress) =>
    recoveredAt === undefined || (p.expiresAt !== null && p.expiresAt > recoveredAt && (p.closedAt === null || p.closedAt > recoveredAt));
  const announcedEverywhere = (p: QuoteProgress) => p.announcements.length === feeds.length && p.announcements.every((n) => n >= 1);
  const finalized = (id: string, p: QuoteProgress) =>
    p.resultDelivered && p.state !== null && (opts.mustFill?.has(id) ? p.state === 'filled' : FINAL_STATES.has(p.state));
  const done = (id: string, p: QuoteProgress) => (!due(p) || announcedEverywhere(p)) && finalized(id, p);

  const until = Date.now() + opts.timeoutMs;
  for (;;) {
    const seen = feeds.map((f) => {
      const m = new Map<string, { n: number; first: number }>();
      for (const e of f.received('rfq_request')) {
        const id = String(e.payload.quote_id);
        const prev = m.get(id);
        m.set(id, { n: (prev?.n ?? 0) + 1, first: prev?.first ?? e.at });
      }
      return m;
    });
    const rows: { id: string; state: string; expires_at: Date; created_at: Date; closed_at: Date | null }[] = await stack.env.db.query(
      `SELECT id, state, expires_at, created_at, closed_at FROM quotes WHERE id = ANY($1)`,
      [quotes.map((q) => q.id)],
    );
    const rowOf = new Map(rows.map((r) => [r.id, r]));
    for (const q of quotes) {
      const p = progress.get(q.id)!;
      p.announcements = seen.map((m) => m.get(q.id)?.n ?? 0);
      p.firstAt = seen.map((m) => m.get(q.id)?.first ?? null);
      const row = rowOf.get(q.id);
      p.state = row?.state ?? null;
      p.expiresAt = row ? new Date(row.expires_at).getTime() : null;
      p.createdAt = row ? new Date(row.created_at).getTime() : null;
      p.closedAt = row?.closed_at ? new Date(row.closed_at).getTime() : null;
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
  const dueEntries = entries.filter(([, p]) => due(p));
  // How long after the recovery each due quote created before it was on its last feed.
  const recoveryDelays =
    recoveredAt === undefined
      ? []
      : dueEntries
          .filter(([, p]) => p.createdAt !== null && p.createdAt < recoveredAt && announcedEverywhere(p))
          .map(([, p]) => Math.max(...p.firstAt.map((t) => t ?? Number.POSITIVE_INFINITY)) - recoveredAt);
  const extraDeliveries = entries.reduce((n, [, p]) => n + p.announcements.reduce((m, c) => m + Math.max(0, c - 1), 0), 0);
  return {
    unfinished: entries.filter(([id, p]) => !done(id, p)).map(([id, p]) => ({ id, ...p })),
    summary: {
      fault,
      sent: load.sent + extra.length,
      created: quotes.length,
      unavailable: load.unavailable,
      other5xx: load.other5xx.length,
      due: dueEntries.length,
      announced: dueEntries.filter(([, p]) => announcedEverywhere(p)).length,
      late: recoveryDelays.filter((ms) => ms > RECOVERY_ANNOUNCE_BOUND_MS).length,
      recoveryMs: recoveredAt === undefined ? null : Math.max(0, ...recoveryDelays),
      finalized: entries.filter(([id, p]) => finalized(id, p)).length,
      lost: entries.filter(([id, p]) => !done(id, p)).length + (after.gaps - before.gaps),
      duplicates: extraDeliveries + (after.duplicates - before.duplicates),
    },
  };
}

/** No maker-visible message of any feed carries a taker's address, raw referrer or salt. */
export function assertNoTakerLeak(stack: Stack<unknown>, quotes: CreatedQuote[]): void {
  const payloads = allFeeds(stack).flatMap((f) => f.events.map((e) => e.payload));
  for (const q of quotes) assertNoTakerIdentity(payloads, { taker: q.taker, referrer: q.referrer, salt: q.salt });
}
