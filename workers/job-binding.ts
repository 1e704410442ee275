import type { JobPayload, JobSpec } from '../shared/platform/queue';
import type { WorkerContext } from './worker-context';

export type JobHandler<J extends JobSpec = JobSpec> = (payload: JobPayload<J>, ctx: WorkerContext, meta: { jobId: string; attempt: number }) => Promise<void>;

export interface BoundJob {
  spec: JobSpec;
  handle: JobHandler;
}

/** Binds a handler to a catalogued job, keeping the payload type. */
export function handles<J extends JobSpec>(spec: J, handle: JobHandler<J>): BoundJob {
  return { spec, handle: handle as JobHandler };
}

/**
 * Checks the handlers bound against the catalog: every catalogued job has exactly one handler and
 * no handler serves an uncatalogued job. A worker that fails this must not start.
 */
export function checkJobBinding(catalog: Record<string, JobSpec>, registered: BoundJob[]): Map<string, BoundJob> {
  const byName = new Map<string, BoundJob>();
  const problems: string[] = [];
  for (const r of registered) {
    if (byName.has(r.spec.name)) problems.push(`job ${r.spec.name} has two handlers`);
    byName.set(r.spec.name, r);
    if (catalog[r.spec.name] !== r.spec) problems.push(`job ${r.spec.name} is not in the catalog`);
  }
  for (const name of Object.keys(catalog)) if (!byName.has(name)) problems.push(`job ${name} has no handler`);
  if (problems.length > 0) throw new Error(`job handlers and catalog disagree:\n  ${problems.join('\n  ')}`);
  return byName;
}
