import { Worker } from 'bullmq';
import { bullPrefix, closeRedis, createBullConnection, type Redis } from '../../../shared/platform/redis';
import { endRetriesOnClose, RetryEndedByClose, type RetryIfFailed } from '../../../workers/closing-retries';
import { createTestEnv, type TestEnv } from '../../support/test-env';
import { startWorkers, type Workers } from '../../support/workers';

/**
 * Both of a worker's connections ready: a connection closed while BullMQ still waits for it to be
 * ready is reported as an 'error' event nobody listens to.
 */
async function connected(worker: Worker): Promise<void> {
  await worker.waitUntilReady();
  await (worker as unknown as { blockingConnection: { client: Promise<unknown> } }).blockingConnection.client;
}

/**
 * A closing BullMQ worker retried a command that failed on a connection error at once, forever:
 * with its connection closed, its process spun on rejected promises and no timer ran again
 * (workers/closing-retries.ts). Each case drives the worker's own retry loop against a real Redis
 * connection that is closed, so every command fails with "Connection is closed."; a loop that
 * does not end is stopped by the test after 1,000 tries instead of hanging the file.
 */
describe("a closing worker's retries end", () => {
  let env: TestEnv;
  let connection: Redis;
  let worker: Worker;
  let workers: Workers | undefined;

  beforeAll(async () => {
    env = await createTestEnv();
  });
  afterAll(async () => {
    await workers?.close();
    await env.close();
  });

  beforeEach(async () => {
    connection = createBullConnection(env.config);
    worker = new Worker('closing-retries', async () => undefined, {
      connection,
      prefix: bullPrefix(env.config.REDIS_PREFIX, 'closing-retries'),
      autorun: false,
    });
    worker.on('error', () => undefined);
    await connected(worker); // before a case closes one
  });
  afterEach(async () => {
    await worker.close(true).catch(() => undefined);
    await closeRedis(connection);
  });

  const retryIfFailed = (w: Worker) => (w as unknown as { retryIfFailed: RetryIfFailed }).retryIfFailed.bind(w);

  /** A command on the worker's (closed) connection, counted; past 1,000 tries it fails with an error BullMQ does not retry. */
  function command() {
    let tries = 0;
    const run = async () => {
      if (++tries > 1000) throw new Error('still retrying after 1,000 tries');
      return connection.get('closing-retries:x');
    };
    return { run, tries: () => tries };
  }

  it('once the worker is closing, a command that fails on a closed connection is tried once, not again and again', async () => {
    endRetriesOnClose(worker);
    await closeRedis(connection);
    const closing = worker.close(true);
    const cmd = command();
    const err: unknown = await retryIfFailed(worker)(cmd.run, { delayInMs: 15_000 }).catch((e: unknown) => e);
    expect(cmd.tries()).toBe(1);
    expect(err).toBeInstanceOf(RetryEndedByClose);
    expect((err as RetryEndedByClose).message).toBe('not retried: the worker is closing (Connection is closed.)');
    // A fetch (errors only emitted) ends with no job rather than an error.
    const fetch = command();
    await expect(retryIfFailed(worker)(fetch.run, { delayInMs: 15_000, onlyEmitError: true })).resolves.toBeUndefined();
    expect(fetch.tries()).toBe(1);
    await closing;
  });

  it('without the guard, the same loop is still spinning after 1,000 tries (what the guard is for)', async () => {
    await closeRedis(connection);
    const closing = worker.close(true);
    const cmd = command();
    await expect(retryIfFailed(worker)(cmd.run, { delayInMs: 15_000 })).rejects.toThrow('still retrying after 1,000 tries');
    expect(cmd.tries()).toBe(1001);
    await closing;
  });

  it('before the close, a connection error is retried after its pause, as BullMQ does', async () => {
    endRetriesOnClose(worker);
    let tries = 0;
    const flaky = async () => {
      if (++tries < 3) throw new Error('Connection is closed.');
      return 'answered';
    };
    await expect(retryIfFailed(worker)(flaky, { delayInMs: 10 })).resolves.toBe('answered');
    expect(tries).toBe(3);
  });

  it('every consumer the workers role starts has the guard', async () => {
    workers = startWorkers(env);
    const queues = workers.host.queueNames;
    expect(queues.length).toBeGreaterThan(0);
    const unguarded = Worker.prototype as unknown as { retryIfFailed: RetryIfFailed };
    for (const q of queues) {
      const consumer = workers.host.consumer(q) as unknown as { retryIfFailed: RetryIfFailed };
      expect({ q, guarded: consumer.retryIfFailed !== unguarded.retryIfFailed }).toEqual({ q, guarded: true });
    }
    // Closed only once every consumer's connections are up (`connected`).
    for (const q of queues) await connected(workers.host.consumer(q)!);
  });
});
