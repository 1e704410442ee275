import { z } from 'zod';
import { defineJob } from '../platform/queue/job-spec';

const uuid = z.uuid();

/** All quote work shares one queue so a create enqueues its jobs in one round trip. */
export const QUOTES_QUEUE = 'quotes';

/** Publish a new quote to the maker feed, interested makers and the taker's stream. */
export const quoteAnnounceJob = defineJob({
  name: 'quote.announce',
  queue: QUOTES_QUEUE,
  schema: z.object({ quote_id: uuid }),
  jobId: (p) => `quote-announce.${p.quote_id}`,
  attempts: 8,
  backoffMs: 100,
});

/**
 * At expires_at: close an open quote and tell the taker and every maker that offered. Enqueued for
 * Dutch quotes; a standard quote expires by the workers' clock (workers/quotes/quote-expiry-clock.ts),
 * and jobs an earlier release enqueued for one still run.
 */
export const quoteExpireJob = defineJob({
  name: 'quote.expire',
  queue: QUOTES_QUEUE,
  schema: z.object({ quote_id: uuid }),
  jobId: (p) => `quote-expire.${p.quote_id}`,
  attempts: 10,
  backoffMs: 200,
});

/** Publish a stored offer to the taker's stream and the offering maker's topic. */
export const offerAnnounceJob = defineJob({
  name: 'offer.announce',
  queue: QUOTES_QUEUE,
  schema: z.object({ offer_id: uuid }),
  jobId: (p) => `offer-announce.${p.offer_id}`,
  attempts: 8,
  backoffMs: 100,
});

/**
 * Backstop, run on a schedule: announces quotes whose announce job never ran, expires quotes
 * past their window, and publishes results of closed quotes whose publish never happened, so a
 * lost job (Redis flushed, enqueue failed after commit, a worker killed between a close and its
 * publish, a fill stored while Redis was down) is late, never lost.
 */
export const quotesSweepJob = defineJob({
  name: 'quotes.sweep',
  queue: QUOTES_QUEUE,
  schema: z.object({}).passthrough(),
  jobId: () => 'quotes-sweep',
  attempts: 1,
});

/**
 * Scheduled: deletes quotes closed more than QUOTE_RETENTION_DAYS ago, with their legs and
 * offers, in bounded batches. Deleting what is already gone is a no-op, so runs may overlap.
 */
export const quotesRetentionJob = defineJob({
  name: 'quotes.retention',
  queue: QUOTES_QUEUE,
  schema: z.object({}).passthrough(),
  jobId: () => 'quotes-retention',
  attempts: 1,
});
