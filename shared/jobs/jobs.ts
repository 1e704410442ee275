import type { JobSpec } from './job-catalog';

/**
 * Every job the system runs, by name. Each concern adds its specs here; the workers' registry
 * checks at boot that each one has exactly one handler.
 */
export const JOBS: Record<string, JobSpec> = {};
