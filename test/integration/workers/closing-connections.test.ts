import net from 'node:net';
import type { EventEmitter } from 'node:events';
import { Worker } from 'bullmq';
import { bullPrefix, closeRedis, createBullConnection } from '../../../shared/platform/redis';
import { keepLateConnectionErrors } from '../../../workers/closing-connections';
import { eventually } from '../../support/events';
import { startWorkers } from '../../support/workers';
import { createTestEnv, type TestEnv } from '../../support/test-env';
import { captureLogs } from './log-capture';

/**
 * A proxy in front of the real Redis that lets each connection get ready (ioredis's ready check
 * is its first INFO) and then holds every answer from its second INFO on: BullMQ's version check,
 * so each BullMQ connection stays mid-start, as behind a Redis that stalls right after a connect.
 */
async function stallAfterReady(target: { host: string; port: number }): Promise<{ url: string; held: () => number; close: () => Promise<void> }> {
  const sockets = new Set<net.Socket>();
  let heldConnections = 0;
  const server = net.createServer((client) => {
    const upstream = net.connect(target.port, target.host);
    sockets.add(client).add(upstream);
    let infos = 0;
    let held = false;
    client.on('data', (chunk) => {
      infos += chunk.toString('latin1').match(/\binfo\r\n/gi)?.length ?? 0;
      if (infos >= 2 && !held) {
        held = true;
        heldConnections++;
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      if (!held) client.write(chunk);
    });
    for (const s of [client, upstream]) {
      s.on('error', () => undefined);
      s.on('close', () => {
        client.destroy();
        upstream.destroy();
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `redis://127.0.0.1:${port}`,
    held: () => heldConnections,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** What `unhandledRejection` reports while `run` goes on, and what `run` answers. */
async function rejectionsDuring(run: () => Promise<void>): Promise<string[]> {
  const seen: string[] = [];
  const onRejection = (reason: unknown) => seen.push(reason instanceof Error ? reason.message : String(reason));
  process.on('unhandledRejection', onRejection);
  try {
    await run();
    // Any other connection's start fails within a few turns of the first: a margin to hear it.
    await new Promise((resolve) => setTimeout(resolve, 500));
  } finally {
    process.off('unhandledRejection', onRejection);
  }
  return seen;
}

/**
 * A BullMQ worker closed while one of its connections is still starting reported that start's
 * failure as an 'error' event after the close had removed every listener: Node threw it as an
 * unhandled rejection, which the crash policy turns into an exit (workers/closing-connections.ts).
 * Each case closes consumers right after they were made, against the real Redis.
 */
describe("a closed consumer's late connection errors", () => {
  let env: TestEnv;
  beforeAll(async () => {
    env = await createTestEnv();
  });
  afterAll(() => env.close());

  it('the workers role replaces and closes consumers still starting without an unhandled error, and logs what it kept', async () => {
    const url = new URL(env.config.REDIS_URL);
    const proxy = await stallAfterReady({ host: url.hostname, port: Number(url.port || 6379) });
    const capture = captureLogs('debug');
    const kept = () => capture.lines().filter((l) => l.msg === 'closed consumer: its connection failed after the close');
    try {
      let connections: readonly { status: string }[] = [];
      const seen = await rejectionsDuring(async () => {
        const workers = startWorkers({ ...env, config: { ...env.config, REDIS_URL: proxy.url } }, { logger: capture.logger, expiryClock: false });
        // A Redis-loss renewal once consumers are mid-start (held at the version check), then a
        // shutdown: both close consumers whose connections are still starting.
        await eventually(
          async () => proxy.held(),
          (n) => n > 0,
          20_000,
          'a connection held at its version check',
        );
        await workers.host.renewConsumers();
        await workers.close();
        connections = workers.host.redisConnections;
        // The situation arose (else the case proves nothing): a closed connection failed with no listener left, and was kept.
        await eventually(
          async () => kept().length,
          (n) => n > 0,
          20_000,
          'a late connection error kept and logged',
        );
      });
      expect(seen).toEqual([]);
      // The close ended every connection the host made, the replaced consumers' too, though none ever answered QUIT.
      expect(connections.length).toBeGreaterThan(0);
      expect(connections.map((c) => c.status).filter((s) => s !== 'end')).toEqual([]);
    } finally {
      await proxy.close();
    }
    expect(kept().length).toBeGreaterThan(0);
    expect(kept()[0]).toMatchObject({ level: 20, queue: expect.any(String) as string, err: expect.any(String) as string });
  });

  it('an error a connection emits while a listener remains still reaches it', async () => {
    const connection = createBullConnection(env.config);
    const worker = new Worker('closing-connections', async () => undefined, {
      connection,
      prefix: bullPrefix(env.config.REDIS_PREFIX, 'closing-connections'),
      autorun: false,
    });
    const lost: unknown[] = [];
    keepLateConnectionErrors(worker, (err) => lost.push(err));
    const heard: string[] = [];
    worker.on('error', (err) => heard.push(err.message));
    try {
      await worker.waitUntilReady();
      const blocking = (worker as unknown as { blockingConnection: EventEmitter }).blockingConnection;
      blocking.emit('error', new Error('heard while open'));
      expect(heard).toEqual(['heard while open']);
      expect(lost).toEqual([]);
      // With no listener left (as after a close), the same event goes to `lost` instead of being thrown.
      blocking.removeAllListeners('error');
      expect(() => blocking.emit('error', new Error('after the close'))).not.toThrow();
      expect(lost.map((e) => (e as Error).message)).toEqual(['after the close']);
    } finally {
      await worker.close(true);
      await closeRedis(connection);
    }
  });

  it('refuses a worker without the private connections it wraps', () => {
    expect(() => keepLateConnectionErrors({} as Worker, () => undefined)).toThrow(
      'bullmq Worker.connection is gone: keepLateConnectionErrors must be checked against this bullmq',
    );
  });
});
