import { SpanKind, type Tracer } from '@opentelemetry/api';
import { DelayedError, UnrecoverableError, Worker, type Job } from 'bullmq';
import { bullPrefix, createBullConnection, closeRedis, type Redis, type RedisTarget } from '../shared/platform/redis';
import { takeTrace, type JobSpec } from '../shared/platform/queue';
import { markFailed, MESSAGING, roleTracer, traceIdOf, traceparentContext } from '../shared/platform/tracing';
import type { BoundJob } from './job-binding';
import { checkJobBinding } from './job-binding';
import { RetryLater } from './retry-later';
import type { WorkerContext } from './worker-context';

/**
 * Runs BullMQ workers, one per queue the registry uses. Each job's payload is checked with its
 * schema first: a payload that does not parse can never succeed, so it fails without retries.
 * A job runs in a span whose parent is the span that enqueued it (the trace context its data
 * carried, taken off before the payload is parsed); a job enqueued outside any span starts a trace.
 */
export class WorkerHost {
  private readonly workers: Worker[] = [];
  private readonly connections: Redis[] = [];
  private readonly jobs: Map<string, BoundJob>;
  private readonly tracer: Tracer | undefined;

  constructor(
    private readonly ctx: WorkerContext,
    catalog: Record<string, JobSpec>,
    registered: BoundJob[],
    private readonly opts: { redis: RedisTarget; redisPrefix: string; concurrency: number; lockDurationMs?: number; stalledIntervalMs?: number },
  ) {
    this.jobs = checkJobBinding(catalog, registered);
    this.tracer = roleTracer(ctx.tracing, 'workers');
  }

  /** The workers' own Redis connections (one per queue), for watching their reconnects. */
  get redisConnections(): readonly Redis[] {
    return this.connections;
  }

  get queueNames(): string[] {
    return [...new Set([...this.jobs.values()].map((j) => j.spec.queue))].sort();
  }

  start(): void {
    const done = this.ctx.metrics.counter('worker_jobs_total', 'Jobs finished by outcome', ['job', 'outcome']);
    for (const queue of this.queueNames) {
      const connection = createBullConnection(this.opts.redis);
      this.connections.push(connection);
      const worker = new Worker(queue, (job, token) => this.run(job, token), {
        connection,
        prefix: bullPrefix(this.opts.redisPrefix, queue),
        concurrency: this.opts.concurrency,
        autorun: true,
        // A replica that dies mid-job stops renewing its lock; another replica takes the job
        // over once the lock lapses. Handlers are idempotent, so a second run is harmless.
        lockDuration: this.opts.lockDurationMs ?? 30_000,
        stalledInterval: this.opts.stalledIntervalMs ?? 30_000,
      });
      worker.on('completed', (job) => done.inc({ job: job.name, outcome: 'completed' }));
      worker.on('failed', (job, err) => {
        done.inc({ job: job?.name ?? 'unknown', outcome: 'failed' });
        // Emitted outside the job's span: the line names the trace the job's data carried.
        const traceId = traceIdOf(takeTrace(job?.data).traceparent);
        this.ctx.logger.warn(
          { job: job?.name, job_id: job?.id, attempt: job?.attemptsMade, err: err.message, ...(traceId && { trace_id: traceId }) },
          'job failed',
        );
      });
      worker.on('error', (err) => this.ctx.logger.error({ queue, err: err.message }, 'worker error'));
      this.workers.push(worker);
    }
    this.ctx.logger.info({ queues: this.queueNames, jobs: [...this.jobs.keys()] }, 'workers started');
  }

  private run(job: Job, token: string | undefined): Promise<void> {
    const { payload, traceparent } = takeTrace(job.data);
    if (!this.tracer) return this.runParsed(job, payload, token);
    const attributes = {
      [MESSAGING.system]: 'bullmq',
      [MESSAGING.operation]: 'process',
      [MESSAGING.destination]: job.queueName,
      [MESSAGING.messageId]: String(job.id),
      'rfq.job.attempt': job.attemptsMade + 1,
    };
    return this.tracer.startActiveSpan(`job ${job.name}`, { kind: SpanKind.CONSUMER, attributes }, traceparentContext(traceparent), async (span) => {
      try {
        await this.runParsed(job, payload, token);
      } catch (err) {
        // A job moved back to the delayed set on purpose did not fail: an event says so instead.
        if (err instanceof DelayedError) span.addEvent('delayed');
        else markFailed(span, err);
        throw err;
      } finally {
        span.end();
      }
    });
  }

  private async runParsed(job: Job, payload: unknown, token: string | undefined): Promise<void> {
    const registered = this.jobs.get(job.name);
    if (!registered) throw new UnrecoverableError(`no handler for job ${job.name}`);
    const parsed = registered.spec.schema.safeParse(payload);
    if (!parsed.success) throw new UnrecoverableError(`job ${job.name} payload invalid: ${parsed.error.message}`);
    try {
      await registered.handle(parsed.data, this.ctx, { jobId: String(job.id), attempt: job.attemptsMade + 1 });
    } catch (err) {
      if (!(err instanceof RetryLater)) throw err;
      // Back to the delayed set under the same id; BullMQ's DelayedError tells the worker the job moved on purpose.
      this.ctx.logger.debug({ job: job.name, job_id: job.id, delay_ms: err.delayMs }, err.message);
      await job.moveToDelayed(Date.now() + Math.max(1, err.delayMs), token);
      throw new DelayedError();
    }
  }

  /** Lets running jobs finish (BullMQ's close waits for them), then closes connections. `force` abandons them, as a crash would. */
  async close(force = false): Promise<void> {
    await Promise.all(this.workers.map((w) => w.close(force)));
    await Promise.all(this.connections.map((c) => closeRedis(c)));
  }
}
