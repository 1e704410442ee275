import { offerAnnounceJob, quoteAnnounceJob, quoteExpireJob, quotesRetentionJob, quotesSweepJob } from '../../shared/quotes';
import { handles, type BoundJob } from '../job-binding';
import { expireQuote } from './quote-expiry';
import { purgeClosedQuotes } from './quote-retention';
import { sweepQuotes } from './quote-sweeper';
import { scheduledReason } from '../sweep-report';

export const quoteHandlers: BoundJob[] = [
  handles(quoteAnnounceJob, (p, ctx) => ctx.notifier.announce(p.quote_id)),
  handles(offerAnnounceJob, (p, ctx) => ctx.notifier.announceOffer(p.offer_id)),
  handles(quoteExpireJob, (p, ctx) => expireQuote(ctx, p.quote_id)),
  handles(quotesSweepJob, async (_p, ctx) => {
    await sweepQuotes(ctx, { reason: scheduledReason(ctx, 'quote') });
  }),
  handles(quotesRetentionJob, async (_p, ctx) => {
    await purgeClosedQuotes(ctx);
  }),
];
