import { isJobSpec, type JobSpec } from '../shared/platform/queue';
import { quoteJobs } from '../shared/quotes';
import { exploreJobs } from '../shared/explore';
import { orderJobs } from '../shared/orders';
import { dutchJobs } from '../shared/dutch';

/**
 * The job modules of the domains (`shared/<domain>/*.jobs.ts`). Every job spec such a module
 * exports is catalogued: a new job is one export in its domain's module, and a new domain's
 * module is one entry here (a test fails on a jobs module left out).
 */
export const JOB_MODULES: readonly Readonly<Record<string, unknown>>[] = [quoteJobs, dutchJobs, exploreJobs, orderJobs];

/** Keys specs by name; two specs under one name would leave one of them without its handler. */
export function catalogOf(specs: readonly JobSpec[]): Record<string, JobSpec> {
  const out: Record<string, JobSpec> = {};
  for (const spec of specs) {
    if (out[spec.name]) throw new Error(`job ${spec.name} is defined twice`);
    out[spec.name] = spec;
  }
  return out;
}

/**
 * Every job the system runs, by name. The worker host checks at boot that each one has
 * exactly one handler (workers/job.handlers.ts) and that no handler serves anything else.
 */
export const JOBS: Record<string, JobSpec> = catalogOf(JOB_MODULES.flatMap((m) => Object.values(m).filter(isJobSpec)));

/**
 * Every BullMQ queue the catalog's jobs run on. The api role cannot import the workers, so the
 * entry point hands it these for the operator's queue dashboard and the queue-depth metric.
 */
export const QUEUE_NAMES: readonly string[] = [...new Set(Object.values(JOBS).map((spec) => spec.queue))].sort();
