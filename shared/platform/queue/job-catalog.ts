import type { z } from 'zod';

/**
 * A job kind: its name, queue, payload schema and deterministic id. The catalog lives in
 * `shared/` so the API can enqueue without importing `workers/`; workers bind one handler
 * to each entry and refuse to boot when one is missing.
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

export function defineJob<S extends z.ZodType>(spec: JobSpec<S>): JobSpec<S> {
  if (!/^[a-z][a-z0-9_.-]*$/.test(spec.name)) throw new Error(`bad job name ${spec.name}`);
  return spec;
}

export type JobPayload<J extends JobSpec> = z.output<J['schema']>;
