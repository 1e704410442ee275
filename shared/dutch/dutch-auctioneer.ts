import type { DataSource } from 'typeorm';
import type { PrivateKeyAccount } from 'viem/accounts';
import { topics, type EventPublisher } from '../events';
import type { Logger } from '../platform/logging';
import type { JobQueue } from '../platform/queue';
import { DutchAwardSigner } from '../protocol';
import { publishRfqRequest, QuoteRepository, type InterestedMakers, type PairDirectory } from '../quotes';
import type { JobSpec } from '../platform/queue';
import type { DutchPhase } from '../../wire/src/dutch.wire';
import { awardDutchQuotes, openDutchQuotes, type AwardedPhase, type DutchAwardDecision } from './dutch-state';
import { DutchRepository } from './dutch.repository';
import { dutchAwardJob, dutchOpenJob } from './dutch.jobs';
import type { DutchQuote } from './dutch.types';
import { decideAward } from './dutch-award-decision';
import type { TakerFundsCheck } from './taker-funds-check';
import { competingView, exclusiveEndsAt, fillableView, makerBidView, takerBidView, takerDutchView, takerSide, winnerAwardView } from './dutch.views';

/** Most competitions (or windows) one run decides; the rest fall to their own jobs or the next batch. */
const BATCH_LIMIT = 64;
/**
 * A run that committed a transition publishes it within milliseconds. A job that finds another
 * run's transition younger than this and not yet published waits this long instead of publishing
 * it a second time; older and still unpublished, that run is taken for dead and this job
 * publishes (under the same idempotency keys, so a wrong guess sends nothing twice).
 */
const PUBLISH_GRACE_MS = 500;
/** A quote held by a concurrent run is looked at again after this long (that run is deciding it). */
const HELD_RETRY_MS = 250;

/**
 * What ends each phase: the job that moves a quote on at the phase's deadline (scheduled when
 * the quote enters the phase: the award's at create, the opening's at the award), or null for
 * the last phase, which the quote's own expiry ends (quote.expire). A phase added to
 * DUTCH_PHASES without its entry here does not compile (docs/ARCHITECTURE.md, "Add a Dutch phase").
 */
export const PHASE_ENDS = {
  competing: dutchAwardJob,
  exclusive: dutchOpenJob,
  open: null,
} as const satisfies { [P in DutchPhase]: JobSpec | null };

/** Thrown when a phase's job fires before its time (by our clock); the worker puts it back. */
export class NotDueYet extends Error {
  constructor(
    readonly delayMs: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Advances Dutch auctions and publishes each step (workers call it). Each step is a guarded
 * transition (quote-state.ts) followed by publishes under idempotency keys, then a record that
 * they went out (`dutch_published_phase`). A step is made in batches: the run of one quote's
 * job also takes every other quote due at that instant, so a thousand competitions ending
 * within a second cost a few transactions instead of a thousand. The other quotes' jobs then
 * find their work done in one read. A worker that dies between a transition and its record
 * leaves it to the quote's own job (retried) or the sweeper, which find the transition made and
 * only publish (once).
 */
export class DutchAuctioneer {
  private readonly repo: DutchRepository;
  private readonly quotes: QuoteRepository;
  private readonly signer: DutchAwardSigner;

  constructor(
    private readonly deps: {
      db: DataSource;
      events: EventPublisher;
      logger: Logger;
      interestedMakers: InterestedMakers;
      pairs: PairDirectory;
      /** Schedules each winner's opening (the exclusive window's end). */
      queue: JobQueue;
      signer: PrivateKeyAccount;
      /** Jobs firing this early (ms) still run: timers and Redis's clock differ by a little. */
      skewMs: number;
      /** Reads a paying taker's funds when a won window ends (absent: no read, every missed window is its winner's). */
      takerFunds?: TakerFundsCheck;
    },
    private readonly clock: () => number = Date.now,
  ) {
    this.repo = new DutchRepository(deps.db);
    this.quotes = new QuoteRepository(deps.db);
    this.signer = new DutchAwardSigner(deps.signer);
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
      const makers = await this.deps.interestedMakers(s.q.chain_id);
      const views = { taker: takerDutchView(s.q, s.legs, s.d), makers: competingView(s.q, s.legs, s.d) };
      await publishRfqRequest(this.deps.events, s.q, views, makers, `rfq_request.${id}.competing`);
    }
    await this.quotes.markAnnounced('quotes', id);
  }

  /**
   * A bid (one version) to the taker's stream, the side that applies to the taker; and to the
   * bidding maker's own topic as `dutch_bid`, the bid as stored (no taker field, as the POST answered it).
   */
  async announceBid(bidId: string, version: number): Promise<void> {
    const b = await this.repo.findBid(bidId);
    if (!b || Number(b.version) !== version) return; // replaced meanwhile: its own job announces the newer one
    const q = await this.quotes.findQuote(b.quote_id);
    if (!q) return;
    await Promise.all([
      this.deps.events.publish(
        topics.rfqStream(q.stream_token_hash),
        'rfq_offer',
        { ...takerBidView(q, b) },
        { idempotencyKey: `rfq_offer.${b.id}.${version}` },
      ),
      this.deps.events.publish(topics.rfqMaker(b.maker), 'dutch_bid', { ...makerBidView(b) }, { idempotencyKey: `dutch_bid.${b.id}.${version}` }),
    ]);
    await this.repo.markBidAnnounced(bidId, version);
  }

  /**
   * At the competition's end: the best bid for the taker's side wins (ties: the earlier bid),
   * gets an exclusive window for the filler its bid named; no bid opens the quote to every filler. The run
   * awards, in the same transaction, every other competition already due (a batch: see
   * docs/DUTCH.md); a quote another run holds is left to it, and looked at again shortly.
   * Returns the phase this quote entered (by this or an earlier run), or null when the quote
   * is no longer live.
   */
  async award(id: string): Promise<AwardedPhase | null> {
    let p = await this.repo.progress(id);
    if (!p) return null;
    if (p.state === 'open' && p.dutch_phase === 'competing') {
      const early = new Date(p.compete_ends_at).getTime() - this.clock();
      if (early > this.deps.skewMs) throw new NotDueYet(early, `competition of ${id} ends in ${early} ms`);
      const mine = (await this.awardBatch(id)).own;
      if (mine) return mine;
      p = await this.repo.progress(id);
      if (!p) return null;
      // Held by a concurrent run (a batch deciding it, a bid being stored): that run decides; look again shortly.
      if (p.state === 'open' && p.dutch_phase === 'competing') throw new NotDueYet(HELD_RETRY_MS, `competition of ${id} is held by a concurrent run`);
    }
    if (p.state !== 'open' || p.dutch_phase === 'competing') return null;
    const phase = p.winner ? 'exclusive' : 'open';
    if (p.dutch_published_phase) return phase;
    this.unlessFresh(p.awarded_at, `award of ${id}`);
    const published = await this.publishAwards(await this.repo.loadMany([id]));
    if (!published.has(id)) throw new Error(`the award of ${id} is made but its publish failed; a retry publishes it`);
    return phase;
  }

  /**
   * Awards quote `id` and every other competition due now, in one transaction holding their
   * rows (no bid slips in): one query ranks the bids of all of them, one guarded statement
   * stores every award, and the publishes go out together after the commit. A quote that
   * cannot be decided (no mothership on its chain, a request it cannot sign) stays competing
   * for its own job to retry, and does not hold up the rest.
   */
  private async awardBatch(id: string | null): Promise<{ own: AwardedPhase | null; awarded: number }> {
    const now = this.clock();
    let ownError: unknown = null;
    const decided = await this.deps.db.transaction(async (m) => {
      const locked = await this.repo.lockCompetitions(m, id, new Date(now), BATCH_LIMIT);
      if (locked.length === 0) return [];
      const best = await this.repo.bestBids(
        m,
        locked.map((s) => ({ id: s.q.id, side: takerSide(s.q) })),
      );
      const decisions: (DutchAwardDecision & { id: string })[] = [];
      const after = new Map<string, DutchQuote>();
      for (const s of locked) {
        try {
          const dir = await this.deps.pairs.get(s.q.chain_id);
          if (!dir?.mothership) throw new Error(`chain ${s.q.chain_id} has no mothership configured; the award waits`);
          const made = await decideAward(s, best.get(s.q.id) ?? null, { now, mothership: dir.mothership, signer: this.signer });
          decisions.push(made.decision);
          after.set(s.q.id, made.after);
        } catch (err) {
          if (s.q.id === id) ownError = err;
          // Its own job (or the sweeper) retries it and reports the failure; here it only must not stop the rest.
          else
            this.deps.logger.debug(
              { quote_id: s.q.id, err: (err as Error).message },
              'a Dutch award failed; its own job retries it, the rest of its batch goes on',
            );
        }
      }
      const changed = await awardDutchQuotes(m, decisions);
      return changed.map((c) => after.get(c.id) as DutchQuote);
    });
    const legs = await this.repo.legsOf(decided.map((s) => s.q.id));
    const published = await this.publishAwards(decided.map((s) => ({ ...s, legs: legs.get(s.q.id) ?? [] })));
    if (decided.length > 0)
      this.deps.logger.info(
        { quote_id: id ?? undefined, awarded: decided.length, winners: decided.filter((s) => s.d.winner).length },
        'Dutch auctions awarded',
      );
    if (ownError) throw ownError;
    const own = decided.find((s) => s.q.id === id);
    if (!own) return { own: null, awarded: decided.length };
    if (!published.has(own.q.id)) throw new Error(`the award of ${own.q.id} is made but its publish failed; a retry publishes it`);
    return { own: own.d.winner ? 'exclusive' : 'open', awarded: decided.length };
  }

  /**
   * Every competition and exclusive window due now, without a job to start it (the workers'
   * Dutch clock calls this at each deadline). Returns how many quotes it moved.
   */
  async advanceDue(): Promise<number> {
    const { awarded } = await this.awardBatch(null);
    const opened = await openDutchQuotes(this.deps.db, null, new Date(this.clock()), BATCH_LIMIT);
    await this.publishOpenings(await this.repo.loadMany(opened));
    // Read at the windows' end, without holding up the clock's next deadline on the chain's RPC;
    // what cannot be read now is left to each window's own job (dutch.open), which retries.
    if (opened.length > 0) void this.deps.takerFunds?.run(opened).catch(() => undefined);
    return awarded + opened.length;
  }

  /**
   * At the exclusive window's end: open to every filler, with every other window already over
   * (one guarded statement), and read whether the paying taker could pay (TakerFundsCheck; a
   * read that fails fails the job, whose retry reads again). Returns whether the quote is (now)
   * open after a win.
   */
  async open(id: string): Promise<boolean> {
    const opened = await this.openWindow(id);
    // Also for a window its quote's expiry closed first: the winner missed it all the same.
    await this.deps.takerFunds?.run([id]);
    return opened;
  }

  private async openWindow(id: string): Promise<boolean> {
    let p = await this.repo.progress(id);
    if (!p || p.state !== 'open') return false;
    if (p.dutch_phase === 'exclusive') {
      const early = exclusiveEndsAt(p, p).getTime() - this.clock();
      if (early > this.deps.skewMs) throw new NotDueYet(early, `exclusive window of ${id} ends in ${early} ms`);
      const opened = await openDutchQuotes(this.deps.db, id, new Date(this.clock()), BATCH_LIMIT);
      const published = await this.publishOpenings(await this.repo.loadMany(opened));
      if (opened.includes(id)) {
        if (!published.has(id)) throw new Error(`${id} is open but its publish failed; a retry publishes it`);
        return true;
      }
      p = await this.repo.progress(id);
      if (!p || p.state !== 'open') return false;
      // Held by a concurrent run's statement (it skipped the row): that run decides; look again shortly.
      if (p.dutch_phase === 'exclusive') throw new NotDueYet(HELD_RETRY_MS, `exclusive window of ${id} is being closed by a concurrent run`);
    }
    if (p.dutch_phase !== 'open' || !p.winner) return false;
    if (p.dutch_published_phase === 'open') return true;
    this.unlessFresh(p.opened_at, `opening of ${id}`);
    const published = await this.publishOpenings(await this.repo.loadMany([id]));
    if (!published.has(id)) throw new Error(`${id} is open but its publish failed; a retry publishes it`);
    return true;
  }

  /** Another run made this transition a moment ago and is publishing it: leave it that run's for a little while. */
  private unlessFresh(at: Date | null, what: string): void {
    const age = this.clock() - new Date(at ?? 0).getTime();
    if (age < PUBLISH_GRACE_MS)
      throw new NotDueYet(Math.min(PUBLISH_GRACE_MS, PUBLISH_GRACE_MS - age), `the ${what} was made ${age} ms ago by a run that is publishing it`);
  }

  /**
   * Publishes awarded quotes (the fillable payload; to the winner, its own `dutch_award` too), schedules each
   * winner's opening, then records them published. Returns the ids fully done; a quote whose
   * publish failed is left unrecorded for its job's retry (or the sweeper) and does not stop the rest.
   */
  private async publishAwards(list: DutchQuote[]): Promise<Set<string>> {
    const sent = await this.publishAll(list, (s) => (s.d.winner ? 'exclusive' : 'open'));
    const winners = sent.filter((s) => s.d.winner);
    try {
      await this.deps.queue.enqueueMany(
        winners.map((s) => ({
          spec: PHASE_ENDS.exclusive,
          payload: { quote_id: s.q.id },
          opts: { delay: Math.max(0, exclusiveEndsAt(s.q, s.d).getTime() - this.clock()) },
        })),
      );
    } catch (err) {
      // Unrecorded, the winners' awards are published again (keyed: nothing twice) and their openings scheduled by the retry or the sweeper.
      this.deps.logger.warn({ quotes: winners.length, err: (err as Error).message }, 'scheduling Dutch openings failed; left for a retry');
      const open = sent.filter((s) => !s.d.winner).map((s) => s.q.id);
      await this.repo.markPublished(open, 'open');
      return new Set(open);
    }
    await Promise.all([
      this.repo.markPublished(
        winners.map((s) => s.q.id),
        'exclusive',
      ),
      this.repo.markPublished(
        sent.filter((s) => !s.d.winner).map((s) => s.q.id),
        'open',
      ),
    ]);
    return new Set(sent.map((s) => s.q.id));
  }

  /** Publishes opened quotes (those that had a winner: the rest opened at their award) and records them. */
  private async publishOpenings(list: DutchQuote[]): Promise<Set<string>> {
    const sent = await this.publishAll(
      list.filter((s) => s.d.winner),
      () => 'open',
    );
    await this.repo.markPublished(
      sent.map((s) => s.q.id),
      'open',
    );
    return new Set(sent.map((s) => s.q.id));
  }

  /** Every quote's payloads at once (the commands share the connection's pipeline); returns the quotes whose publishes all went out. */
  private async publishAll(list: DutchQuote[], phaseOf: (s: DutchQuote) => AwardedPhase): Promise<DutchQuote[]> {
    const chains = [...new Set(list.map((s) => s.q.chain_id))];
    const makers = new Map(await Promise.all(chains.map(async (c) => [c, await this.deps.interestedMakers(c)] as const)));
    const results = await Promise.allSettled(list.map((s) => this.publishFillable(s, phaseOf(s), makers.get(s.q.chain_id) ?? [])));
    return list.filter((s, i) => {
      const r = results[i];
      if (r.status === 'rejected') this.deps.logger.warn({ quote_id: s.q.id, err: (r.reason as Error)?.message }, 'a Dutch publish failed; left for a retry');
      return r.status === 'fulfilled';
    });
  }

  /** The fillable payload to the feed, interested makers and the taker; in `exclusive`, `dutch_award` to the winner alone. */
  private async publishFillable({ q, d, legs }: DutchQuote, phase: AwardedPhase, makers: readonly `0x${string}`[]): Promise<void> {
    const views = { taker: { ...takerDutchView(q, legs, d), dutch_phase: phase }, makers: { ...fillableView(q, legs, d), dutch_phase: phase } };
    await Promise.all([
      publishRfqRequest(this.deps.events, q, views, makers, `rfq_request.${q.id}.${phase}`),
      ...(phase === 'exclusive' && d.winner
        ? [this.deps.events.publish(topics.rfqMaker(d.winner), 'dutch_award', { ...winnerAwardView(q, legs, d) }, { idempotencyKey: `dutch_award.${q.id}` })]
        : []),
    ]);
  }
}
