import { QueueEvents } from 'bullmq';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { defineJob, isJobSpec, TRACE_FIELD, type JobSpec } from '../../../shared/platform/queue';
import { bullPrefix, createBullConnection, closeRedis } from '../../../shared/platform/redis';
import { catalogOf, JOBS } from '../../../workers/job-catalog';
import { HANDLERS } from '../../../workers/job.handlers';
import { checkJobBinding, handles } from '../../../workers/job-binding';
import { WorkerHost } from '../../../workers/worker-host';
import { buildWorkerContext } from '../../../workers/worker-context';
import { createTestEnv, type TestEnv } from '../../support/test-env';
import { startWorkers } from '../../support/workers';
import { eventually } from '../../support/events';
import { captureLogs } from './log-capture';

const echo = defineJob({
  name: 'test.echo',
  queue: 'test',
  schema: z.object({ n: z.number().int() }),
  jobId: (p) => `echo.${p.n}`,
  attempts: 3,
  backoffMs: 10,
});

describe('worker host and job binding', () => {
  let env: TestEnv;
  beforeAll(async () => {
    env = await createTestEnv();
  });
  afterAll(() => env.close());

  it('refuses to boot when a catalogued job has no handler, or a handler has no catalogue entry', () => {
    expect(() => checkJobBinding({ [echo.name]: echo }, [])).toThrow('job test.echo has no handler');
    const stray = defineJob({ ...echo, name: 'test.stray' });
    expect(() => checkJobBinding({}, [handles(stray, async () => undefined)])).toThrow('job test.stray is not in the catalog');
    expect(() => checkJobBinding({ [echo.name]: echo }, [handles(echo, async () => undefined), handles(echo, async () => undefined)])).toThrow(
      'job test.echo has two handlers',
    );
  });

  it('a host refuses to start on handlers that do not match its catalog', () => {
    const opts = { redis: env.config, redisPrefix: env.config.REDIS_PREFIX, concurrency: 1 };
    const ctx = buildWorkerContext(env, async () => []);
    expect(() => new WorkerHost(ctx, { [echo.name]: echo }, [], opts)).toThrow('job test.echo has no handler');
    expect(() => new WorkerHost(ctx, {}, [handles(echo, async () => undefined)], opts)).toThrow('job test.echo is not in the catalog');
  });

  it('the shipped catalog and handlers match one to one', () => {
    expect([...checkJobBinding(JOBS, HANDLERS).keys()].sort()).toEqual(Object.keys(JOBS).sort());
    expect(Object.keys(JOBS).length).toBeGreaterThan(0);
  });

  it('two jobs under one name are refused', () => {
    expect(() => catalogOf([echo, defineJob({ ...echo })])).toThrow('job test.echo is defined twice');
  });

  it('every job a domain defines is catalogued, and jobs are defined only in *.jobs.ts modules', () => {
    const shared = path.resolve(__dirname, '../../../shared');
    const files = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? files(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : [],
      );
    const defining = files(shared).filter(
      (f) => !f.includes(`${path.sep}platform${path.sep}queue${path.sep}`) && /\bdefineJob\(/.test(readFileSync(f, 'utf8')),
    );
    expect(defining.filter((f) => !f.endsWith('.jobs.ts')).map((f) => path.relative(shared, f))).toEqual([]);
    const catalogued = new Set(Object.values(JOBS));
    for (const file of defining) {
      // Loaded as the catalog sees it: by its exports.
      const specs = Object.values(require(file) as Record<string, unknown>).filter(isJobSpec);
      expect(specs.length).toBeGreaterThan(0);
      expect(specs.filter((s) => !catalogued.has(s)).map((s) => `${path.relative(shared, file)}: ${s.name}`)).toEqual([]);
    }
  });

  it('runs each job once per deterministic id, retries failures, and fails unparseable payloads without retry', async () => {
    const seen: number[] = [];
    let flaky = 0;
    const catalog: Record<string, JobSpec> = { [echo.name]: echo };
    const conn = createBullConnection(env.config);
    const events = new QueueEvents('test', { connection: conn, prefix: bullPrefix(env.config.REDIS_PREFIX, 'test') });
    await events.waitUntilReady();
    const workers = startWorkers(env, {
      catalog,
      handlers: [
        handles(echo, async (p) => {
          if (p.n === 7 && flaky++ < 2) throw new Error('transient');
          seen.push(p.n);
        }),
      ],
    });
    try {
      const finished = new Promise<void>((resolve) => {
        let n = 0;
        events.on('completed', () => ++n === 3 && resolve());
      });
      await env.queue.enqueue(echo, { n: 1 });
      await env.queue.enqueue(echo, { n: 1 }); // same id: dropped by BullMQ
      await env.queue.enqueue(echo, { n: 2 });
      await env.queue.enqueue(echo, { n: 7 });
      await finished;
      expect(seen.sort()).toEqual([1, 2, 7]);
      expect(flaky).toBe(3);

      const failed = new Promise<string>((resolve) => events.on('failed', ({ failedReason }) => resolve(failedReason)));
      await env.queue.queue('test').add('test.echo', { n: 'not a number' }, { jobId: 'bad', attempts: 5 });
      expect(await failed).toMatch(/payload invalid/);
      const job = await env.queue.queue('test').getJob('bad');
      expect(job?.attemptsMade).toBe(1);
    } finally {
      await workers.close();
      await events.close();
      await closeRedis(conn);
    }
  });

  it('a consumer that stops taking jobs while its queue holds due work is replaced and the work gets done; a consumer with nothing due is left alone', async () => {
    const seen: number[] = [];
    const logs = captureLogs();
    const workers = startWorkers(env, {
      catalog: { [echo.name]: echo },
      handlers: [handles(echo, async (p) => void seen.push(p.n))],
      logger: logs.logger,
      stuckAfterMs: 1000,
    });
    try {
      const first = workers.host.consumer('test')!;
      expect(first).toBeDefined();
      // Nothing due: however long the consumer has been idle, it stays.
      expect(await workers.host.checkConsumers(Date.now() + 60_000)).toEqual([]);
      expect(workers.host.consumer('test')).toBe(first);
      // It stops taking jobs (as BullMQ's loop can after a failover, still reporting itself running) while a job waits.
      await first.pause(true);
      await env.queue.enqueue(echo, { n: 41 });
      // The host's own timer finds it: a new consumer on the queue, which runs the job.
      const next = await eventually(
        async () => workers.host.consumer('test'),
        (c) => c !== first,
        30_000,
        'a new consumer for the queue',
      );
      expect(next?.isRunning()).toBe(true);
      await eventually(
        async () => seen,
        (s) => s.includes(41),
        30_000,
        'the waiting job done by the new consumer',
      );
      expect(seen).toEqual([41]);
      expect(logs.lines().filter((l) => l.msg === 'queue consumer took no job while work was due: replacing it')).toEqual([
        expect.objectContaining({ level: 40, queue: 'test', waiting: 1, overdue_delayed: 0 }),
      ]);
      // A consumer that has just run a job is not stuck.
      expect(await workers.host.checkConsumers()).toEqual([]);
      // A delayed job past its time by the bound is due work too (no consumer has moved it to
      // waiting): seen from a clock 5 s on, the stopped consumer's queue has some and is replaced.
      await next!.pause(true);
      await env.queue.enqueue(echo, { n: 42 }, { delay: 100 });
      expect(await workers.host.checkConsumers(Date.now() + 5_000)).toEqual(['test']);
      expect(workers.host.consumer('test')).not.toBe(next);
      await eventually(
        async () => seen,
        (s) => s.includes(42),
        30_000,
        'the delayed job done by the third consumer',
      );
      expect(
        logs
          .lines()
          .filter((l) => l.msg === 'queue consumer took no job while work was due: replacing it')
          .at(-1),
      ).toMatchObject({
        queue: 'test',
        overdue_delayed: 1,
      });
    } finally {
      await workers.close(true);
    }
  });

  it('after a Redis data loss every consumer is renewed at once, whatever the bound, and the new one takes jobs', async () => {
    const seen: number[] = [];
    const logs = captureLogs();
    const workers = startWorkers(env, {
      catalog: { [echo.name]: echo },
      handlers: [handles(echo, async (p) => void seen.push(p.n))],
      logger: logs.logger,
    });
    try {
      const first = workers.host.consumer('test')!;
      // Not fetching, as a consumer whose queue was rolled back under it can be; nothing is due yet.
      await first.pause(true);
      expect(await workers.host.renewConsumers()).toEqual(['test']);
      const next = workers.host.consumer('test');
      expect(next).not.toBe(first);
      expect(next?.isRunning()).toBe(true);
      await env.queue.enqueue(echo, { n: 51 });
      await eventually(
        async () => seen,
        (s) => s.includes(51),
        30_000,
        'the job done by the renewed consumer',
      );
    } finally {
      await workers.close(true);
    }
  });

  it("a job's carried trace context is taken off before its payload is parsed, so even a strict schema accepts it; a failure's log line names its trace", async () => {
    const strict = defineJob({ name: 'test.strict', queue: 'test', schema: z.strictObject({ n: z.number().int() }), jobId: (p) => `strict.${p.n}` });
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const seen: unknown[] = [];
    const logs = captureLogs();
    const conn = createBullConnection(env.config);
    const events = new QueueEvents('test', { connection: conn, prefix: bullPrefix(env.config.REDIS_PREFIX, 'test') });
    await events.waitUntilReady();
    const workers = startWorkers(env, { catalog: { [strict.name]: strict }, handlers: [handles(strict, async (p) => void seen.push(p))], logger: logs.logger });
    try {
      const outcomes = new Map<string, string>();
      const both = new Promise<void>((resolve) => {
        const settle = (id: string, outcome: string) => outcomes.set(id, outcome).size === 2 && resolve();
        events.on('completed', ({ jobId }) => settle(jobId, 'completed'));
        events.on('failed', ({ jobId, failedReason }) => settle(jobId, `failed: ${failedReason}`));
      });
      // As a traced API enqueues them: the payload and, beside it, the W3C traceparent of its span.
      await env.queue.queue('test').add(strict.name, { n: 3, [TRACE_FIELD]: traceparent }, { jobId: 'strict.3' });
      await env.queue.queue('test').add(strict.name, { n: 'x', [TRACE_FIELD]: traceparent }, { jobId: 'strict.x', attempts: 1 });
      await both;
      expect(outcomes.get('strict.3')).toBe('completed');
      expect(outcomes.get('strict.x')).toMatch(/^failed: job test.strict payload invalid/);
      expect(seen).toEqual([{ n: 3 }]);
      const failed = await eventually(
        async () => logs.lines().find((l) => l.msg === 'job failed' && l.job_id === 'strict.x'),
        (l) => l !== undefined,
      );
      expect(failed).toMatchObject({ trace_id: '0af7651916cd43dd8448eb211c80319c' });
    } finally {
      await workers.close();
      await events.close();
      await closeRedis(conn);
    }
  });

  it('the queue refuses a payload its schema rejects and a job id BullMQ would refuse', async () => {
    await expect(env.queue.enqueue(echo, { n: 1.5 } as never)).rejects.toThrow(/expected int/i);
    const colon = defineJob({ ...echo, name: 'test.colon', jobId: (p) => `c:${p.n}` });
    await expect(env.queue.enqueue(colon, { n: 1 })).rejects.toThrow("job id c:1 of test.colon contains ':'");
  });
});
