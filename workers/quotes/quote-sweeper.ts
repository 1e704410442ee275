import { PubsubRegistrations } from '../../shared/events';
import { IdempotencyService } from '../../shared/platform/idempotency';
import { QuoteRepository } from '../../shared/quotes';
import type { WorkerContext } from '../worker-context';
import { expireQuote } from './quote-expiry';
import { DutchRepository } from '../../shared/dutch';
import { awardDutch, openDutch } from '../dutch/dutch-phases';
import { redoSteps, type SweepReason, type SweepStep } from '../sweep-report';

/** Past its window by this much, an open quote is the sweeper's to expire; younger ones belong to the expiry clock (a Dutch one to its job). */
const SWEEP_GRACE_SECONDS = 2;
const SWEEP_BATCH = 500;

/**
 * The backstop for lost jobs: announces unannounced quotes and offers, expires open quotes past
 * their window, publishes results of closed quotes whose publish never happened (a worker killed
 * between its close and its publish, a fill stored while Redis was down), and forgets
 * idempotency records past their TTL and the Postgres copies of lapsed pubsub registrations
 * (a free session registers freemium: nothing it leaves may outlive its lapse). Each item stands alone: one
 * that fails is logged and left for the next sweep, and the rest still get done.
 */
export async function sweepQuotes(ctx: WorkerContext, opts: { graceSeconds?: number; reason?: SweepReason } = {}): Promise<Record<string, number>> {
  // A sweep on reconnect passes 0: the jobs it would otherwise leave to are what the outage lost.
  const grace = opts.graceSeconds ?? SWEEP_GRACE_SECONDS;
  const work = await new QuoteRepository(ctx.db).overdue(grace, SWEEP_BATCH);
  const dutch = await new DutchRepository(ctx.db).overdue(grace, SWEEP_BATCH);
  const versionOf = new Map(dutch.bids.map((b) => [b.id, Number(b.version)]));
  const steps: SweepStep[] = [
    ['dutch_announce', dutch.unannounced, (id) => ctx.dutch.announce(id)],
    ['dutch_bid', [...versionOf.keys()], (id) => ctx.dutch.announceBid(id, versionOf.get(id) as number)],
    ['dutch_award', dutch.award, (id) => awardDutch(ctx, id)],
    ['dutch_open', dutch.open, (id) => openDutch(ctx, id)],
    ['announce', work.unannounced, (id) => ctx.notifier.announce(id)],
    ['announce_offer', work.offers, (id) => ctx.notifier.announceOffer(id)],
    ['expire', work.expired, (id) => expireQuote(ctx, id)],
    ['publish_result', work.unpublished, (id) => ctx.notifier.publishResult(id)],
  ];
  const redone = await redoSteps(ctx, 'quote', steps, opts.reason ?? 'scheduled');
  try {
    const forgotten = await new IdempotencyService(ctx.db).purge(ctx.config.IDEMPOTENCY_TTL_HOURS);
    if (forgotten > 0) ctx.logger.info({ forgotten }, 'idempotency keys past their TTL removed');
  } catch (err) {
    ctx.logger.warn({ err: (err as Error).message }, 'idempotency purge failed; the next sweep tries again');
  }
  try {
    const lapsed = await new PubsubRegistrations(ctx.redis, ctx.config, ctx.db).purgeLapsed();
    if (lapsed > 0) ctx.logger.info({ lapsed }, 'lapsed pubsub registrations removed from Postgres');
  } catch (err) {
    ctx.logger.warn({ err: (err as Error).message }, 'pubsub registration purge failed; the next sweep tries again');
  }
  return redone;
}
