import { SpanKind, type Tracer } from '@opentelemetry/api';
import { DelayedError, UnrecoverableError, Worker, type Job } from 'bullmq';
import { bullPrefix, createBullConnection, closeRedis, type Redis, type RedisTarget } from '../shared/platform/redis';
import { takeTrace, type JobSpec } from '../shared/platform/queue';
import { markFailed, MESSAGING, roleTracer, traceIdOf, traceparentContext } from '../shared/platform/tracing';
import type { BoundJob } from './job-binding';
import { checkJobBinding } from './job-binding';
import { RetryLater } from './retry-later';
import { endRetriesOnClose } from './closing-retries';
import { keepLateConnectionErrors } from './closing-connections';
import type { WorkerContext } from './worker-context';

/** One queue's consumer: its BullMQ worker, the connection it owns, and when it last took or finished a job. */
interface Consumer {
  worker: Worker;
  connection: Redis;
  lastProgressAt: number;
}

/** How long a queue may hold due work while its consumer takes none before the consumer is replaced (WorkerHost's default). */
export const CONSUMER_STUCK_AFTER_MS = 20_000;

/**
 * Runs BullMQ workers, one per queue the job catalog uses. Each job's payload is checked with its
 * schema first: a payload that does not parse can never succeed, so it fails without retries.
 * A job runs in a span whose parent is the span that enqueued it (the trace context its data
 * carried, taken off before the payload is parsed); a job enqueued outside any span starts a trace.
 */
export class WorkerHost {
  private readonly consumers = new Map<string, Consumer>();
  /** Every connection a consumer was given, replaced ones included; `close` ends those still open. */
  private readonly connections: Redis[] = [];
  /** Replaced consumers still closing (`retire`); `close` waits for them. */
  private readonly retiring = new Set<Promise<void>>();
  private readonly jobs: Map<string, BoundJob>;
  private readonly tracer: Tracer | undefined;
  private watchdog: NodeJS.Timeout | undefined;
  private checking: Promise<string[]> | undefined;
  private closed = false;

  constructor(
    private readonly ctx: WorkerContext,
    catalog: Record<string, JobSpec>,
    registered: BoundJob[],
    private readonly opts: {
      redis: RedisTarget;
      redisPrefix: string;
      concurrency: number;
      lockDurationMs?: number;
      stalledIntervalMs?: number;
      /** See CONSUMER_STUCK_AFTER_MS; the watchdog looks every quarter of it. */
      stuckAfterMs?: number;
    },
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

  /** The BullMQ worker consuming `queue` now (a replaced one is gone from here). */
  consumer(queue: string): Worker | undefined {
    return this.consumers.get(queue)?.worker;
  }

  start(): void {
    for (const queue of this.queueNames) this.startConsumer(queue);
    this.ctx.logger.info({ queues: this.queueNames, jobs: [...this.jobs.keys()] }, 'workers started');
    const every = Math.max(50, Math.floor((this.opts.stuckAfterMs ?? CONSUMER_STUCK_AFTER_MS) / 4));
    this.watchdog = setInterval(() => {
      this.checkConsumers().catch((err: unknown) => this.ctx.logger.error({ err: (err as Error).message }, 'queue consumer check failed'));
    }, every);
    this.watchdog.unref();
  }

  /**
   * The watchdog. A BullMQ worker can stop taking jobs after its Redis fails over (a blocking
   * command cut off mid-wait, a connection that reconnects without its blocking loop) while
   * reporting itself running; BullMQ leaves restarting it to the application. A queue that holds
   * due work (jobs waiting, or a delayed job past its time by the bound) while this replica's
   * consumer has taken and finished nothing for the bound gets a new consumer on a new
   * connection; the old one is closed with `force` (a job it still held is taken over by another
   * consumer once its lock lapses; handlers are idempotent). While Redis cannot be read the check
   * does nothing: a new consumer would fare no better.
   */
  async checkConsumers(now = Date.now()): Promise<string[]> {
    // One check at a time: a caller arriving during the timer's check waits for it, then checks.
    while (this.checking) await this.checking;
    if (this.closed) return [];
    const check = this.replaceStuck(now);
    this.checking = check;
    try {
      return await check;
    } finally {
      this.checking = undefined;
    }
  }

  private async replaceStuck(now: number): Promise<string[]> {
    const replaced: string[] = [];
    const bound = this.opts.stuckAfterMs ?? CONSUMER_STUCK_AFTER_MS;
    // A snapshot: a replacement goes back into the map and must not be judged in the same pass.
    for (const [queue, c] of [...this.consumers]) {
      if (now - c.lastProgressAt < bound) continue;
      const due = await this.dueWork(queue, now - bound).catch(() => null);
      if (due === null || due.waiting + due.overdue === 0 || this.closed) continue;
      this.ctx.logger.warn(
        { queue, idle_ms: now - c.lastProgressAt, waiting: due.waiting, overdue_delayed: due.overdue },
        'queue consumer took no job while work was due: replacing it',
      );
      this.ctx.metrics.counter('worker_consumers_replaced_total', 'Queue consumers replaced by the watchdog', ['queue']).inc({ queue });
      this.consumers.delete(queue);
      this.retireLater(c);
      this.startConsumer(queue);
      replaced.push(queue);
    }
    return replaced;
  }

  /**
   * Replaces every consumer at once (new connection, new fetch loop), without waiting for the
   * watchdog's bound: after a Redis data loss the queue state a consumer holds in memory (the job
   * it fetched, the marker it blocks on, the locks it renews) no longer matches Redis, rolled back
   * or emptied under it, and a consumer left so has been seen to take nothing more until the
   * watchdog replaced it 20 s later. Answers the queues renewed.
   */
  async renewConsumers(): Promise<string[]> {
    while (this.checking) await this.checking;
    if (this.closed) return [];
    const renewed: string[] = [];
    for (const [queue, c] of [...this.consumers]) {
      this.consumers.delete(queue);
      this.retireLater(c);
      this.startConsumer(queue);
      renewed.push(queue);
    }
    return renewed;
  }

  /** Jobs waiting in `queue`, and whether its earliest delayed job was due before `overdueBefore`. */
  private async dueWork(queue: string, overdueBefore: number): Promise<{ waiting: number; overdue: number }> {
    const q = this.ctx.queue.queue(queue);
    const counts = await q.getJobCounts('wait', 'prioritized');
    const [earliest] = await q.getJobs(['delayed'], 0, 0, true);
    const overdue = earliest && earliest.timestamp + earliest.delay < overdueBefore ? 1 : 0;
    return { waiting: (counts.wait ?? 0) + (counts.prioritized ?? 0), overdue };
  }

  private retireLater(c: Consumer): void {
    const retired = this.retire(c).finally(() => this.retiring.delete(retired));
    this.retiring.add(retired);
  }

  /** Closes a replaced consumer without waiting on it for long: it may be the stuck one. */
  private async retire(c: Consumer): Promise<void> {
    const timeout = new Promise<void>((resolve) => setTimeout(resolve, 5_000).unref());
    await Promise.race([c.worker.close(true).catch(() => undefined), timeout]);
    // Bounded by closeRedis itself (QUIT_WAIT_MS), and it ends the connection whatever Redis does.
    await closeRedis(c.connection);
  }

  private startConsumer(queue: string): void {
    const done = this.ctx.metrics.counter('worker_jobs_total', 'Jobs finished by outcome', ['job', 'outcome']);
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
    endRetriesOnClose(worker);
    keepLateConnectionErrors(worker, (err) =>
      this.ctx.logger.debug({ queue, err: err instanceof Error ? err.message : String(err) }, 'closed consumer: its connection failed after the close'),
    );
    const consumer: Consumer = { worker, connection, lastProgressAt: Date.now() };
    const progressed = () => (consumer.lastProgressAt = Date.now());
    worker.on('active', progressed);
    worker.on('completed', (job) => {
      progressed();
      done.inc({ job: job.name, outcome: 'completed' });
    });
    worker.on('failed', (job, err) => {
      progressed();
      done.inc({ job: job?.name ?? 'unknown', outcome: 'failed' });
      // Emitted outside the job's span: the line names the trace the job's data carried.
      const traceId = traceIdOf(takeTrace(job?.data).traceparent);
      this.ctx.logger.warn(
        { job: job?.name, job_id: job?.id, attempt: job?.attemptsMade, err: err.message, ...(traceId && { trace_id: traceId }) },
        'job failed',
      );
    });
    worker.on('error', (err) => this.ctx.logger.error({ queue, err: err.message }, 'worker error'));
    this.consumers.set(queue, consumer);
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
    this.closed = true;
    clearInterval(this.watchdog);
    await Promise.all([...this.consumers.values()].map((c) => c.worker.close(force)));
    await Promise.all(this.retiring);
    await Promise.all(this.connections.map((c) => closeRedis(c)));
  }
}
