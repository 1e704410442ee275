import { randomBytes } from 'node:crypto';
import { toHex, type Address, type Hex } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import type { DataSource } from 'typeorm';
import { topics, type EventPublisher } from '../events';
import type { Logger } from '../platform/logging';
import { dutchAwardTypedData, exclusiveSaltHash, type DutchAward } from '../protocol';
import { awardDutchQuote, openDutchQuote, QuoteRepository, type InterestedMakers, type PairDirectory, type QuoteRow } from '../quotes';
import { DutchRepository } from './dutch.repository';
import { competingView, exclusiveEndsAt, fillableView, takerBidView, takerDutchView, takerSide, winnerAwardView } from './dutch-views';

/** Thrown when a phase's job fires before its time (by our clock); the worker puts it back. */
export class NotDueYet extends Error {
  constructor(readonly delayMs: number, message: string) {
    super(message);
  }
}

/**
 * Advances Dutch auctions and publishes each step (workers call it). Each step is a guarded
 * transition (quote-state.ts) followed by publishes under idempotency keys, and the publish
 * step runs again whenever the job does: a worker that dies between the two leaves the job to
 * be retried, which finds the transition made and only publishes (once).
 */
export class DutchAuctioneer {
  private readonly repo: DutchRepository;
  private readonly quotes: QuoteRepository;

  constructor(
    private readonly deps: {
      db: DataSource;
      events: EventPublisher;
      logger: Logger;
      interestedMakers: InterestedMakers;
      pairs: PairDirectory;
      signer: PrivateKeyAccount;
      /** Jobs firing this early (ms) still run: timers and Redis's clock differ by a little. */
      skewMs: number;
    },
    private readonly clock: () => number = Date.now,
  ) {
    this.repo = new DutchRepository(deps.db);
    this.quotes = new QuoteRepository(deps.db);
  }

  private async load(id: string) {
    const [q, d] = await Promise.all([this.quotes.findQuote(id), this.repo.find(id)]);
    if (!q || !d) return null;
    return { q, d, legs: await this.quotes.legs(id) };
  }

  /** The competing payload (no directions, nothing they follow from) to the feed, interested makers and the taker. */
  async announce(id: string): Promise<void> {
    const s = await this.load(id);
    if (!s) return;
    if (s.q.state === 'open' && s.d.dutch_phase === 'competing') {
      const forMakers = competingView(s.q, s.legs, s.d);
      const once = { idempotencyKey: `rfq_request.${id}.competing` };
      const makers = await this.deps.interestedMakers(s.q.chain_id);
      await Promise.all([
        this.deps.events.publish(topics.rfqStream(s.q.stream_token_hash), 'rfq_request', { ...takerDutchView(s.q, s.legs, { ...s.d }) }, once),
        this.deps.events.publish(topics.quotesRequests(s.q.chain_id), 'rfq_request', { ...forMakers }, once),
        ...makers.map((m) => this.deps.events.publish(topics.rfqMaker(m), 'rfq_request', { ...forMakers }, once)),
      ]);
    }
    await this.quotes.markAnnounced('quotes', id);
  }

  /** A bid (one version) to the taker's stream: the side that applies to the taker. */
  async announceBid(bidId: string, version: number): Promise<void> {
    const b = await this.repo.findBid(bidId);
    if (!b || Number(b.version) !== version) return; // replaced meanwhile: its own job announces the newer one
    const q = await this.quotes.findQuote(b.quote_id);
    if (!q) return;
    await this.deps.events.publish(topics.rfqStream(q.stream_token_hash), 'rfq_offer', { ...takerBidView(q, b) }, { idempotencyKey: `rfq_offer.${b.id}.${version}` });
    await this.repo.markBidAnnounced(bidId, version);
  }

  /**
   * At the competition's end: the best bid for the taker's side wins (ties: the earlier bid),
   * gets an exclusive window and the salt; no bid opens the quote to every filler. Returns the
   * phase entered (by this or an earlier run), or null when the quote is no longer live.
   */
  async award(id: string): Promise<'exclusive' | 'open' | null> {
    const s = await this.load(id);
    if (!s) return null;
    if (s.q.state === 'open' && s.d.dutch_phase === 'competing') {
      const early = new Date(s.d.compete_ends_at).getTime() - this.clock();
      if (early > this.deps.skewMs) throw new NotDueYet(early, `competition of ${id} ends in ${early} ms`);
      await this.decide(s.q, s.d.exclusive_ms, s.d.dutch_request_digest);
    }
    const after = await this.load(id);
    if (!after || after.q.state !== 'open' || after.d.dutch_phase === 'competing') return null;
    await this.publishFillable(after.q, after.legs, after.d, after.d.winner ? 'exclusive' : 'open');
    return after.d.winner ? 'exclusive' : 'open';
  }

  /** Picks the winner and signs the award inside one transaction holding the quote, so no bid slips in between. */
  private async decide(q: QuoteRow, exclusiveMs: number, digest: Hex): Promise<void> {
    const dir = await this.deps.pairs.get(q.chain_id);
    if (!dir?.mothership) throw new Error(`chain ${q.chain_id} has no mothership configured; the award waits`);
    const mothership: Address = dir.mothership;
    await this.deps.db.transaction(async (m) => {
      const locked = await this.quotes.lockQuote(m, q.id);
      if (!locked || locked.state !== 'open') return;
      const [best] = await this.repo.bidsBestFirst(q.id, takerSide(q), m);
      const now = this.clock();
      const notBefore = Math.floor(now / 1000);
      const salt = best ? toHex(randomBytes(32)) : null;
      const endsAt = best ? new Date(Math.min(now + Number(exclusiveMs), new Date(q.expires_at).getTime())) : null;
      const award: DutchAward = {
        requestDigest: digest,
        exclusiveSaltHash: salt ? exclusiveSaltHash(salt) : `0x${'00'.repeat(32)}`,
        improvementBps: BigInt(best ? (takerSide(q) === 'buy' ? best.buy_override_bps : best.sell_override_bps) : 0),
        notBefore,
        exclusiveEnd: endsAt ? Math.floor(endsAt.getTime() / 1000) : notBefore,
      };
      const signature = await this.deps.signer.signTypedData(dutchAwardTypedData(q.chain_id, mothership, award));
      await awardDutchQuote(m, q.id, {
        winner: best ? best.maker : null,
        exclusive_salt: salt,
        exclusive_ends_at: endsAt,
        award: {
          request_digest: award.requestDigest,
          exclusive_salt_hash: award.exclusiveSaltHash,
          improvement_bps: award.improvementBps.toString(),
          not_before: award.notBefore,
          exclusive_end: award.exclusiveEnd,
          signer: this.deps.signer.address,
          signature,
        },
      });
    });
  }

  /** The exclusive window's end of an awarded quote (for scheduling its opening). */
  async deadlines(id: string): Promise<{ exclusiveEndsAt: Date } | null> {
    const s = await this.load(id);
    return s ? { exclusiveEndsAt: exclusiveEndsAt(s.q, s.d) } : null;
  }

  /** At the exclusive window's end: open to every filler. Returns whether the quote is (now) open. */
  async open(id: string): Promise<boolean> {
    const s = await this.load(id);
    if (!s || s.q.state !== 'open') return false;
    if (s.d.dutch_phase === 'exclusive') {
      const early = exclusiveEndsAt(s.q, s.d).getTime() - this.clock();
      if (early > this.deps.skewMs) throw new NotDueYet(early, `exclusive window of ${id} ends in ${early} ms`);
      await openDutchQuote(this.deps.db, id);
    }
    const after = await this.load(id);
    if (!after || after.q.state !== 'open' || after.d.dutch_phase !== 'open' || !after.d.winner) return false;
    await this.publishFillable(after.q, after.legs, after.d, 'open');
    return true;
  }

  /** The fillable payload to the feed, interested makers and the taker; in `exclusive`, the salt to the winner alone. */
  private async publishFillable(q: QuoteRow, legs: Awaited<ReturnType<QuoteRepository['legs']>>, d: NonNullable<Awaited<ReturnType<DutchRepository['find']>>>, phase: 'exclusive' | 'open') {
    const once = { idempotencyKey: `rfq_request.${q.id}.${phase}` };
    const view = { ...fillableView(q, legs, d), dutch_phase: phase };
    const makers = await this.deps.interestedMakers(q.chain_id);
    await Promise.all([
      this.deps.events.publish(topics.rfqStream(q.stream_token_hash), 'rfq_request', { ...takerDutchView(q, legs, d), dutch_phase: phase }, once),
      this.deps.events.publish(topics.quotesRequests(q.chain_id), 'rfq_request', view, once),
      ...makers.map((m) => this.deps.events.publish(topics.rfqMaker(m), 'rfq_request', view, once)),
      ...(phase === 'exclusive' && d.winner
        ? [this.deps.events.publish(topics.rfqMaker(d.winner), 'dutch_award', { ...winnerAwardView(q, legs, d), exclusive_salt: String(d.exclusive_salt) }, { idempotencyKey: `dutch_award.${q.id}` })]
        : []),
    ]);
  }
}
