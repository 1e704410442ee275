import { getAddress } from 'viem';
import type { DataSource } from 'typeorm';
import { topics, type EventPublisher, type RfqRequestEvent, type RfqRequestTakerEvent } from '../events';
import type { TopicRef } from '../platform/event-bus';
import type { Logger } from '../platform/logging';
import { QuoteRepository } from './quote.repository';
import type { QuoteRow } from './quote.types';
import { makerQuoteView, makerResultView, offerView, takerQuoteView, takerResultView } from './quote.views';

/**
 * How long past its window an unannounced quote is still announced: the recovery bound of
 * docs/FAULTS.md (a quote open when Redis or Postgres came back is announced within this long).
 */
export const LATE_ANNOUNCE_MS = 5000;

/** Makers to tell about a new quote on a chain besides the public feed (premium registrations). */
export type InterestedMakers = (chainId: number) => Promise<`0x${string}`[]>;

/**
 * The makers that took part in a quote and hear its result. The quotes domain knows only those
 * that offered (QuoteRepository.offeringMakers); the roles pass shared/dutch's `resultMakers`,
 * which adds a Dutch quote's bidders, so this domain never reads a Dutch table.
 */
export type ResultMakers = (quoteId: string) => Promise<`0x${string}`[]>;

/**
 * The taker's stream of a quote, as a publishable topic. Given the stream grace
 * (QUOTE_STREAM_GRACE_SECONDS), the ref carries the token's end: a signed token keeps no record
 * in Redis, and its end is the quote's window plus the grace, as the create minted it; the
 * publish script bounds the topic's keys by it. Without it, the token's record says (a Dutch
 * quote's token, or one minted before signed tokens).
 */
export function takerStream(q: Pick<QuoteRow, 'stream_token_hash' | 'expires_at'>, graceSeconds: number | undefined): TopicRef<'rfq_stream'> {
  const ref = topics.rfqStream(q.stream_token_hash);
  return graceSeconds === undefined ? ref : { ...ref, tokenEndsAt: new Date(q.expires_at).getTime() + graceSeconds * 1000 };
}

/**
 * Publishes what happens to a quote. Every publish carries an idempotency key derived from the
 * quote or offer id, so a retried or duplicated job, or the sweeper racing a job, sends each
 * event once. Maker-facing payloads come only from the maker views.
 */
export class QuoteNotifier {
  private readonly repo: QuoteRepository;

  constructor(
    private readonly deps: {
      db: DataSource;
      events: EventPublisher;
      logger: Logger;
      interestedMakers: InterestedMakers;
      resultMakers: ResultMakers;
      /** QUOTE_STREAM_GRACE_SECONDS: how long past its window a quote's stream token lives (takerStream). */
      streamGraceSeconds: number;
    },
  ) {
    this.repo = new QuoteRepository(deps.db);
  }

  /**
   * rfq_request of a package quote to the maker feed, interested makers and the taker's stream;
   * then marks the quote announced. A quote of another format is announced by its own domain
   * (a Dutch one by shared/dutch, whose feed payload hides the directions).
   */
  async announce(quoteId: string): Promise<void> {
    const q = await this.repo.findQuote(quoteId);
    if (!q || q.offer_format !== 'package_only') return;
    // A quote whose window passed well before this run (a late sweep) is not worth a maker's
    // attention. One that was open moments ago is still announced: after an outage the recovery
    // sweep and the quote's own jobs reach it a little after its dependency came back, and a
    // quote open at that moment must reach the makers (docs/FAULTS.md, the recovery invariant).
    if (q.state === 'open' && new Date(q.expires_at).getTime() > Date.now() - LATE_ANNOUNCE_MS) {
      // Both at once: each is a round trip on the way to the makers.
      const [legs, makers] = await Promise.all([this.repo.legs(quoteId), this.deps.interestedMakers(q.chain_id)]);
      const views = { taker: takerQuoteView(q, legs), makers: makerQuoteView(q, legs) };
      await publishRfqRequest(this.deps.events, q, views, makers, `rfq_request.${q.id}`, this.deps.streamGraceSeconds);
    }
    await this.repo.markAnnounced('quotes', quoteId);
  }

  /** rfq_offer to the taker's stream and to the offering maker's own topic. */
  async announceOffer(offerId: string): Promise<void> {
    // The offer and where its taker listens in one read: this job is on the way to the taker.
    const o = await this.repo.findOfferToAnnounce(offerId);
    if (!o?.stream_token_hash) return;
    const stream = takerStream({ stream_token_hash: o.stream_token_hash, expires_at: o.quote_expires_at }, this.deps.streamGraceSeconds);
    const payload = { ...offerView(o) };
    const once = { idempotencyKey: `rfq_offer.${o.id}` };
    await Promise.all([
      this.deps.events.publish(stream, 'rfq_offer', payload, once),
      this.deps.events.publish(topics.rfqMaker(o.maker), 'rfq_offer', payload, once),
    ]);
    await this.repo.markAnnounced('quote_offers', offerId);
  }

  /** rfq_result of a closed quote to the taker and to every maker that offered (without the fill tx). */
  publishResult(quoteId: string): Promise<boolean> {
    return publishQuoteResult(this.deps, quoteId);
  }
}

/**
 * The one `rfq_request` fan-out, for a standard quote's announce and a Dutch quote's competing
 * and fillable announces: the taker's view to its own stream, the makers' view (never the
 * taker's address) to the chain's feed and to each interested maker, all at once and under one
 * idempotency key, so a retried job or a sweeper racing it sends each once.
 */
export async function publishRfqRequest(
  events: EventPublisher,
  q: Pick<QuoteRow, 'chain_id' | 'stream_token_hash' | 'expires_at'>,
  views: { taker: RfqRequestTakerEvent; makers: RfqRequestEvent },
  makers: readonly `0x${string}`[],
  idempotencyKey: string,
  streamGraceSeconds?: number,
): Promise<void> {
  const once = { idempotencyKey };
  await Promise.all([
    events.publish(takerStream(q, streamGraceSeconds), 'rfq_request', { ...views.taker }, once),
    events.publish(topics.quotesRequests(q.chain_id), 'rfq_request', { ...views.makers }, once),
    ...makers.map((m) => events.publish(topics.rfqMaker(m), 'rfq_request', { ...views.makers }, once)),
  ]);
}

/**
 * rfq_result of a closed quote: the taker view to the taker's stream, the maker view (no fill
 * transaction, whose sender is the taker) to every maker that took part (`resultMakers`). The expiry worker and
 * the indexer's settlement path both publish through here. The idempotency key defaults to one
 * result per quote; a fill passes its own (a fill re-mined after a reorg is news again).
 */
export async function publishQuoteResult(
  deps: { db: DataSource; events: EventPublisher; resultMakers: ResultMakers; streamGraceSeconds?: number },
  quoteId: string,
  opts: { idempotencyKey?: string; alsoMakers?: `0x${string}`[] } = {},
): Promise<boolean> {
  const repo = new QuoteRepository(deps.db);
  const q = await repo.findQuote(quoteId);
  if (!q || q.state === 'open') return false;
  const makers = [...new Set([...(await deps.resultMakers(quoteId)), ...(opts.alsoMakers ?? []).map((m) => getAddress(m))])];
  const once = { idempotencyKey: opts.idempotencyKey ?? `rfq_result.${q.id}` };
  const forMakers = { ...makerResultView(q) };
  await Promise.all([
    deps.events.publish(takerStream(q, deps.streamGraceSeconds), 'rfq_result', { ...takerResultView(q) }, once),
    ...makers.map((m) => deps.events.publish(topics.rfqMaker(m), 'rfq_result', forMakers, once)),
  ]);
  // Only now: a close whose publish never happened (a crash, Redis down) is the sweeper's to redo.
  await repo.markResultPublished(q.id);
  return true;
}
