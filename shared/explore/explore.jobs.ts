import { z } from 'zod';
import { defineJob } from '../platform/queue/job-spec';

/** Explore work: opening live streams and fanning chain events out to them. */
export const EXPLORE_QUEUE = 'explore';

/**
 * Opens a minted explore stream: records the token as a watcher, reads the subject's snapshot,
 * writes the stream's relay anchor and publishes the snapshot as the topic's only event (the API
 * never publishes to sockets). Retrying is safe: until the snapshot went out a retry writes a
 * fresh anchor and snapshot; after, it changes nothing (the publish is idempotent per token).
 */
export const exploreStreamOpenJob = defineJob({
  name: 'explore.stream.open',
  queue: EXPLORE_QUEUE,
  schema: z.object({
    feed: z.enum(['clob', 'loan']),
    chain_id: z.number().int().positive(),
    subject: z.string().min(1).max(128),
    token_hash: z.string().regex(/^[0-9a-f]{64}$/),
    expires_at_ms: z.number().int().positive(),
  }),
  jobId: (p) => `explore-open.${p.token_hash}`,
  attempts: 8,
  backoffMs: 100,
});

/**
 * Publishes a subject's outbox once to its feed topic, which the socket tier relays to the
 * subject's streams (ExploreStreamHub.fanout). The indexer enqueues one after each append to a
 * watched subject; each is named by the appended entry, so none is merged into a running one that
 * has already read past it. A fan-out that finds the outbox drained does nothing.
 */
export const exploreStreamFanoutJob = defineJob({
  name: 'explore.stream.fanout',
  queue: EXPLORE_QUEUE,
  schema: z.object({
    feed: z.enum(['clob', 'loan']),
    chain_id: z.number().int().positive(),
    subject: z.string().min(1).max(128),
    entry_id: z.string().regex(/^[0-9]+-[0-9]+$/),
  }),
  jobId: (p) => `explore-fanout.${p.feed}.${p.chain_id}.${p.subject.toLowerCase()}.${p.entry_id}`,
  attempts: 8,
  backoffMs: 100,
});
