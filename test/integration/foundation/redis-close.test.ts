import net from 'node:net';
import { closeRedis, createRedis, QUIT_WAIT_MS } from '../../../shared/platform/redis';
import { createTestEnv, type TestEnv } from '../../support/test-env';

/**
 * `closeRedis` asks for QUIT and drops the connection when no answer comes: a shutdown must not
 * wait forever on a Redis that accepted the connection and then stopped answering.
 */
describe('closeRedis', () => {
  let env: TestEnv;
  beforeAll(async () => {
    env = await createTestEnv();
  });
  afterAll(() => env.close());

  it('quits a connection that answers: the server is told, and the client ends', async () => {
    const redis = createRedis(env.config);
    await redis.ping();
    const name = `close-test-${process.pid}`;
    await redis.client('SETNAME', name);
    await closeRedis(redis);
    expect(redis.status).toBe('end');
    const probe = createRedis(env.config);
    try {
      expect(String(await probe.client('LIST'))).not.toContain(`name=${name} `);
    } finally {
      await closeRedis(probe);
    }
  });

  it('drops a connection whose server accepted it and never answers, instead of waiting on QUIT', async () => {
    const sockets = new Set<net.Socket>();
    const silent = net.createServer((s) => {
      sockets.add(s);
      s.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as net.AddressInfo;
    const redis = createRedis(`redis://127.0.0.1:${port}`);
    try {
      await new Promise<void>((resolve) => redis.once('connect', () => resolve()));
      // QUIT waits behind a ready check that never comes back; without the bound this never settles.
      const ceiling = new Promise<'still waiting'>((resolve) => setTimeout(() => resolve('still waiting'), QUIT_WAIT_MS * 10).unref());
      expect(await Promise.race([closeRedis(redis).then(() => 'closed' as const), ceiling])).toBe('closed');
      expect(redis.status).toBe('end');
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });
});
