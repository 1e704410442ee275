import { Queue, type JobsOptions } from 'bullmq';
import type { Redis } from '../redis';
import type { JobPayload, JobSpec } from './job-catalog';

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

  async enqueue<J extends JobSpec>(spec: J, payload: JobPayload<J>, opts: Pick<JobsOptions, 'delay' | 'priority'> = {}): Promise<string> {
    const data = spec.schema.parse(payload);
    const jobId = spec.jobId(data);
    if (jobId.includes(':')) throw new Error(`job id ${jobId} of ${spec.name} contains ':', which BullMQ reserves`);
    await this.queue(spec.queue).add(spec.name, data, {
      jobId,
      attempts: spec.attempts ?? 5,
      backoff: { type: 'exponential', delay: spec.backoffMs ?? 200 },
      removeOnComplete: { age: 3600, count: 10000 },
      removeOnFail: { age: 24 * 3600 },
      ...opts,
    });
    return jobId;
  }

  async close(): Promise<void> {
    await Promise.all([...this.queues.values()].map((q) => q.close()));
    this.queues.clear();
  }
}
