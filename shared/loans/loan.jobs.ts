import { z } from 'zod';
import { defineJob } from '../platform/queue/job-catalog';

/** Loan stream work has its own queue: a burst of explore streams never delays quote work. */
export const LOANS_QUEUE = 'loans';

/**
 * A loan stream was minted: publish its snapshot (the topic's first event), then register it
 * as a watcher of its networks so live loan events follow the snapshot. Idempotent: the
 * snapshot carries an idempotency key and re-adding a watcher changes nothing.
 */
export const loanStreamOpenJob = defineJob({
  name: 'loans.stream_open',
  queue: LOANS_QUEUE,
  schema: z.object({
    token_hash: z.string().regex(/^[0-9a-f]{64}$/),
    chain_ids: z.array(z.number().int().min(1)),
    expires_at_ms: z.number().int().min(0),
  }),
  jobId: (p) => `loan-stream-open.${p.token_hash}`,
  attempts: 8,
  backoffMs: 100,
});
