import { expireDueQuotes, QuoteRepository } from '../../shared/quotes';
import { DeadlineClock } from '../deadline-clock';
import type { WorkerContext } from '../worker-context';
import { expireQuote } from './quote-expiry';

/** Quotes closed per statement; a pass that fills it looks again at once. */
const BATCH = 500;
/** Results published at once after a batch closed. */
const PUBLISH_CONCURRENCY = 16;

/**
 * Expires standard quotes at the end of their windows: a clock over the open quotes' index
 * (quotes_open_expiry), not a delayed job per quote (issue #41). It sleeps until the soonest
 * window end, then closes every quote due in one statement and publishes each result (the
 * taker's stream and every maker that offered). The quote's end lives in Postgres only, so a
 * worker restart or a Redis that lost its data loses no expiry: the next pass, in this or any
 * replica, finds it. Replicas racing for one instant split it by row locks (SKIP LOCKED).
 *
 * Behind it, as behind the jobs before: a quote closed whose result was never published (a
 * replica died between the two, Redis was down) is the sweeper's `publish_result`, and a quote
 * still open past its window (no workers running at the time) the sweeper's `expire`. A quote
 * never announced is announced first, one at a time (expireQuote), as its job did.
 */
export class QuoteExpiryClock {
  private readonly repo: QuoteRepository;
  private readonly loop: DeadlineClock;

  constructor(
    private readonly ctx: WorkerContext,
    clock: () => number = Date.now,
  ) {
    this.repo = new QuoteRepository(ctx.db);
    this.loop = new DeadlineClock(
      {
        nextDeadline: (floor) => this.repo.nextExpiry(floor),
        runDue: (now) => this.expireDue(now),
        onFailure: (err) => ctx.logger.warn({ err: err.message }, 'quote expiry clock pass failed; the next pass and the sweeper still expire the quotes'),
      },
      clock,
    );
  }

  start(): void {
    this.loop.start();
  }

  /** Stops after the pass under way (its statement commits and its results publish). */
  close(): Promise<void> {
    return this.loop.close();
  }

  /** Closes the quotes due by `now` and publishes their results; answers how many it closed. */
  async expireDue(now: Date): Promise<number> {
    const unannounced = await this.repo.dueUnannounced(now, BATCH);
    for (const id of unannounced) {
      // Each stands alone: one that fails is left for the next pass or the sweeper.
      await expireQuote(this.ctx, id).catch((err: unknown) =>
        this.ctx.logger.warn({ quote_id: id, err: (err as Error).message }, 'quote expiry failed; the sweeper tries it again'),
      );
    }
    const closed = await expireDueQuotes(this.ctx.db, now, BATCH);
    if (closed.length > 0) this.ctx.logger.info({ count: closed.length }, 'quotes expired');
    for (let i = 0; i < closed.length; i += PUBLISH_CONCURRENCY) {
      const results = await Promise.allSettled(closed.slice(i, i + PUBLISH_CONCURRENCY).map((id) => this.ctx.notifier.publishResult(id)));
      const failed = results.filter((r) => r.status === 'rejected').length;
      if (failed > 0) this.ctx.logger.warn({ failed }, 'expired quotes whose result did not publish; the sweeper publishes them');
    }
    return closed.length + unannounced.length;
  }
}
