import { offerAnnounceJob, quoteAnnounceJob, quoteExpireJob, quotesRetentionJob, quotesSweepJob } from '../shared/quotes/quote.jobs';
import type { JobSpec } from '../shared/platform/queue/job-catalog';

/**
 * Every job the system runs, by name. Each concern adds its specs here; the workers' registry
 * checks at boot that each one has exactly one handler.
 */
export const JOBS: Record<string, JobSpec> = Object.fromEntries(
  [quoteAnnounceJob, quoteExpireJob, offerAnnounceJob, quotesSweepJob, quotesRetentionJob].map((j) => [j.name, j as JobSpec]),
);
