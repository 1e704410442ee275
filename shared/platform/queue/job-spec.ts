import type { z } from 'zod';

/**
 * A job kind: its name, queue, payload schema and deterministic id. Each domain declares its
 * specs in `shared/<domain>/*.jobs.ts`, so the API can enqueue without importing `workers/`;
 * the workers' catalog collects them and binds one handler to each, and refuses to boot when
 * one is missing.
 */
export interface JobSpec<S extends z.ZodType = z.ZodType> {
  name: string;
  queue: string;
  schema: S;
  /** Same logical work, same id: BullMQ drops the duplicate. No `:` (BullMQ reserves it). */
  jobId: (payload: z.output<S>) => string;
  attempts?: number;
  backoffMs?: number;
}

/** Every spec made by defineJob, so a catalog can collect a module's specs from its exports. */
const defined = new WeakSet<object>();

export function defineJob<S extends z.ZodType>(spec: JobSpec<S>): JobSpec<S> {
  if (!/^[a-z][a-z0-9_.-]*$/.test(spec.name)) throw new Error(`bad job name ${spec.name}`);
  defined.add(spec);
  return spec;
}

/** True for a spec made by defineJob. */
export function isJobSpec(v: unknown): v is JobSpec {
  return typeof v === 'object' && v !== null && defined.has(v);
}

export type JobPayload<J extends JobSpec> = z.output<J['schema']>;
