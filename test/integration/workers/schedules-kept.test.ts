import { Lifecycle } from '../../../shared/platform/lifecycle';
import { ORDERS_QUEUE } from '../../../shared/orders';
import { QUOTES_QUEUE } from '../../../shared/quotes';
import { startWorkers } from '../../../workers';
import { startTestRedis, type TestRedis } from '../../faults/redis-server';
import { createTestEnv, type TestEnv } from '../../support/test-env';
import { captureLogs } from './log-capture';

/**
 * The workers' periodic jobs (the quote and order sweepers, the order records sweeper, quote retention) are BullMQ job
 * schedulers, Redis keys. Whatever removes them (a FLUSHALL, a restart without persistence, an
 * eviction, an operator) the workers put them back within REDIS_EPOCH_CHECK_MS, without a
 * restart and without an epoch change (workers/redis-loss.ts).
 */
describe('the workers keep their schedules installed', () => {
  let redis: TestRedis;
  let env: TestEnv;
  let lifecycle: Lifecycle;
  const logs = captureLogs();
  const SCHEDULERS = [
    [QUOTES_QUEUE, 'quotes-sweep'],
    [QUOTES_QUEUE, 'quotes-retention'],
    [ORDERS_QUEUE, 'orders-sweep'],
    [ORDERS_QUEUE, 'orders-records-sweep'],
  ] as const;

  beforeAll(async () => {
    redis = await startTestRedis({ persistence: false });
    env = await createTestEnv({
      REDIS_URL: redis.url,
      REDIS_EPOCH_CHECK_MS: '200',
      QUOTE_SWEEP_INTERVAL_MS: '600000',
      ORDER_SWEEP_INTERVAL_MS: '600000',
      ORDER_RECORDS_SWEEP_INTERVAL_MS: '600000',
    });
    lifecycle = new Lifecycle(logs.logger, 10_000);
    await startWorkers({ ...env, logger: logs.logger }, lifecycle, { concurrency: 2 });
  }, 60_000);

  afterAll(async () => {
    await lifecycle?.shutdown('test over');
    await env?.close();
    await redis?.close();
  });

  const installed = async () => {
    const found = await Promise.all(SCHEDULERS.map(([q, id]) => env.queue.queue(q).getJobScheduler(id)));
    return found.map((s) => (s ? { id: s.key, every: s.every } : null));
  };

  it('a scheduler removed while the workers run is installed again, with its interval, and the line and the metric say so', async () => {
    expect(await installed()).toEqual([
      { id: 'quotes-sweep', every: 600000 },
      { id: 'quotes-retention', every: env.config.QUOTE_RETENTION_INTERVAL_MS },
      { id: 'orders-sweep', every: 600000 },
      { id: 'orders-records-sweep', every: 600000 },
    ]);
    await env.queue.queue(QUOTES_QUEUE).removeJobScheduler('quotes-sweep');
    await env.queue.queue(ORDERS_QUEUE).removeJobScheduler('orders-sweep');
    expect((await installed()).filter((s) => s === null)).toHaveLength(2);

    await waitUntil('the schedulers back', async () => (await installed()).every((s) => s !== null));
    expect(await installed()).toEqual([
      { id: 'quotes-sweep', every: 600000 },
      { id: 'quotes-retention', every: env.config.QUOTE_RETENTION_INTERVAL_MS },
      { id: 'orders-sweep', every: 600000 },
      { id: 'orders-records-sweep', every: 600000 },
    ]);
    await waitUntil('the line', () => logs.lines().some((l) => String(l.msg).startsWith('job schedulers missing in Redis, installed again')));
    const line = logs.lines().find((l) => String(l.msg).startsWith('job schedulers missing in Redis, installed again'))!;
    expect(line.schedulers).toEqual(['quotes-sweep', 'orders-sweep']);
    expect(await env.metrics.registry.getSingleMetricAsString('rfq_job_schedulers_reinstalled_total')).toMatch(/ 2$/m);
  });

  it('after a FLUSHALL every scheduler is back', async () => {
    await env.redis.flushall();
    expect((await installed()).every((s) => s === null)).toBe(true);
    await waitUntil('the schedulers back', async () => (await installed()).every((s) => s !== null));
  });
});

async function waitUntil(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 20_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
