import { z } from 'zod';
import { defineJob } from '../platform/queue/job-catalog';

/** Explore work: opening live streams. */
export const EXPLORE_QUEUE = 'explore';

/**
 * Opens a minted explore stream: reads the subject's snapshot, registers the token as a watcher
 * from the snapshot's block, and publishes the snapshot as the topic's first event (the API
 * never publishes to sockets). Retrying is safe: the watcher is re-registered at the fresh
 * snapshot's block and the snapshot publish is idempotent per token.
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
