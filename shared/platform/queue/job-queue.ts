import { Queue, type JobsOptions } from 'bullmq';
import type { Redis } from '../redis';
import type { JobPayload, JobSpec } from './job-catalog';

export type EnqueueOptions = Pick<JobsOptions, 'delay' | 'priority'>;

/**
 * Enqueues catalogued jobs. One BullMQ Queue per queue name, sharing one connection.
 * Payloads are validated before they leave, so a worker never sees a malformed job.
 */
export class JobQueue {
  private readonly queues = new Map<string, Queue>();

  constructor(
    private readonly connection: Redis,
    private readonly prefix: string,
  ) {}

  queue(name: string): Queue {
    let q = this.queues.get(name);
    if (!q) {
      q = new Queue(name, { connection: this.connection, prefix: this.prefix });
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
        data,
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
    await this.queue(queue).addBulk(bulk);
    return bulk.map((b) => b.opts.jobId);
  }

  async close(): Promise<void> {
    await Promise.all([...this.queues.values()].map((q) => q.close()));
    this.queues.clear();
  }
}
