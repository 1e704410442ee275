import { Queue, type JobsOptions } from 'bullmq';
import { bullPrefix, type Redis } from '../redis';
import type { JobPayload, JobSpec } from './job-spec';
import { withTrace } from './job-trace';

export type EnqueueOptions = Pick<JobsOptions, 'delay' | 'priority'>;

type BulkJob = Parameters<Queue['addBulk']>[0][number];

/**
 * Enqueues catalogued jobs. One BullMQ Queue per queue name, sharing one connection, each under
 * its own hash-tagged prefix (`bullPrefix`).
 * Payloads are validated before they leave, so a worker never sees a malformed job; a job
 * enqueued inside a span carries its trace context beside the payload (job-trace.ts).
 */
export class JobQueue {
  private readonly queues = new Map<string, Queue>();
  /** Jobs enqueued during this turn of the event loop, per queue, with their callers' answers. */
  private readonly inFlight = new Set<Promise<void>>();
  private readonly pending = new Map<string, { jobs: BulkJob[]; settle: { resolve: () => void; reject: (err: unknown) => void }[] }>();

  constructor(
    private readonly connection: Redis,
    private readonly redisPrefix: string,
  ) {}

  queue(name: string): Queue {
    let q = this.queues.get(name);
    if (!q) {
      q = new Queue(name, { connection: this.connection, prefix: bullPrefix(this.redisPrefix, name) });
      // BullMQ forwards its connection's errors to the queue, and a queue with no listener writes
      // them raw to stderr. The connection's own listener (shared/platform/redis) already has them.
      q.on('error', () => undefined);
      this.queues.set(name, q);
    }
    return q;
  }

  async enqueue<J extends JobSpec>(spec: J, payload: JobPayload<J>, opts: EnqueueOptions = {}): Promise<string> {
    const [id] = await this.enqueueMany([{ spec, payload, opts }]);
    return id;
  }

  /** Several jobs of one queue in one round trip (BullMQ addBulk). */
  async enqueueMany(jobs: { spec: JobSpec; payload: unknown; opts?: EnqueueOptions }[]): Promise<string[]> {
    if (jobs.length === 0) return [];
    const queue = jobs[0].spec.queue;
    const bulk = jobs.map(({ spec, payload, opts }) => {
      if (spec.queue !== queue) throw new Error(`enqueueMany takes one queue; got ${queue} and ${spec.queue}`);
      const data = spec.schema.parse(payload);
      const jobId = spec.jobId(data);
      if (jobId.includes(':')) throw new Error(`job id ${jobId} of ${spec.name} contains ':', which BullMQ reserves`);
      return {
        name: spec.name,
        data: withTrace(data),
        opts: {
          jobId,
          attempts: spec.attempts ?? 5,
          backoff: { type: 'exponential', delay: spec.backoffMs ?? 200 },
          removeOnComplete: { age: 3600, count: 10000 },
          removeOnFail: { age: 24 * 3600 },
          ...opts,
        },
      };
    });
    await this.addCoalesced(queue, bulk);
    return bulk.map((b) => b.opts.jobId);
  }

  /**
   * Every enqueue of one queue made in the same turn of the event loop goes out as ONE addBulk
   * (one MULTI, one round trip): under load, concurrent requests each adding their jobs cost one
   * Redis write between them instead of one each. Each caller is answered when that round trip
   * is, with its success or its failure: nothing is acknowledged before Redis has it.
   */
  private addCoalesced(queue: string, jobs: BulkJob[]): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      let batch = this.pending.get(queue);
      if (!batch) {
        batch = { jobs: [], settle: [] };
        this.pending.set(queue, batch);
        const flushing = batch;
        setImmediate(() => {
          this.pending.delete(queue);
          const sent = this.queue(queue)
            .addBulk(flushing.jobs)
            .then(
              () => flushing.settle.forEach((s) => s.resolve()),
              (err: unknown) => flushing.settle.forEach((s) => s.reject(err)),
            );
          this.inFlight.add(sent);
          void sent.finally(() => this.inFlight.delete(sent));
        });
      }
      batch.jobs.push(...jobs);
      batch.settle.push({ resolve, reject });
    });
  }

  async close(): Promise<void> {
    // Enqueues already accepted go out first: a batch still gathering is sent on the next turn.
    await new Promise((r) => setImmediate(r));
    await Promise.allSettled([...this.inFlight]);
    await Promise.all([...this.queues.values()].map((q) => q.close()));
    this.queues.clear();
  }
}
