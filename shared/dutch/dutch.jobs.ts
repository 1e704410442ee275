import { z } from 'zod';
import { defineJob } from '../platform/queue/job-spec';
import { QUOTES_QUEUE } from '../quotes';

const uuid = z.uuid();

/*
 * Dutch phases advance by these jobs, on the quotes queue. Each id is deterministic, each
 * handler applies its transition with one guarded statement (quote-state.ts) and publishes under
 * an idempotency key, so a duplicated job, a second worker replica or a retry after a worker
 * died mid-advance applies each transition and sends each event once.
 */

/** At create: the competing payload to the maker feed, interested makers and the taker. */
export const dutchAnnounceJob = defineJob({
  name: 'dutch.announce',
  queue: QUOTES_QUEUE,
  schema: z.object({ quote_id: uuid }),
  jobId: (p) => `dutch-announce.${p.quote_id}`,
  attempts: 8,
  backoffMs: 100,
});

/** At the competition's end: pick the best bid, sign the award, publish the fillable payload. */
export const dutchAwardJob = defineJob({
  name: 'dutch.award',
  queue: QUOTES_QUEUE,
  schema: z.object({ quote_id: uuid }),
  jobId: (p) => `dutch-award.${p.quote_id}`,
  attempts: 10,
  backoffMs: 100,
});

/** At the exclusive window's end: the quote opens to every filler. */
export const dutchOpenJob = defineJob({
  name: 'dutch.open',
  queue: QUOTES_QUEUE,
  schema: z.object({ quote_id: uuid }),
  jobId: (p) => `dutch-open.${p.quote_id}`,
  attempts: 10,
  backoffMs: 100,
});

/** A stored bid (one version of it) to the taker's stream. */
export const dutchBidAnnounceJob = defineJob({
  name: 'dutch.bid-announce',
  queue: QUOTES_QUEUE,
  schema: z.object({ bid_id: uuid, version: z.number().int().min(1) }),
  jobId: (p) => `dutch-bid.${p.bid_id}.${p.version}`,
  attempts: 8,
  backoffMs: 100,
});
