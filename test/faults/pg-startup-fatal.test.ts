import net from 'node:net';
import { createDataSource } from '../../shared/entities';
import { dependencyOutage } from '../../shared/platform/errors';
import { createTestEnv, type TestEnv } from '../support/test-env';

/**
 * A TCP proxy to Postgres that, on every connection after the first, appends a FATAL
 * "terminating connection due to administrator command" right behind the server's first
 * ReadyForQuery, in the same chunk, and then closes: exactly what a client reads when
 * pg_terminate_backend hits a session that has just finished starting up.
 */
async function startTerminatingProxy(target: URL): Promise<{ port: number; injected(): number; close(): Promise<void> }> {
  const fatal = errorResponse([
    ['S', 'FATAL'],
    ['V', 'FATAL'],
    ['C', '57P01'],
    ['M', 'terminating connection due to administrator command'],
  ]);
  const sockets = new Set<net.Socket>();
  let connections = 0;
  let injections = 0;
  const server = net.createServer((client) => {
    const n = ++connections;
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => s.destroy());
    }
    client.pipe(upstream);
    let pending = Buffer.alloc(0);
    let injected = false;
    upstream.on('data', (chunk: Buffer) => {
      if (n === 1 || injected) {
        if (!injected) client.write(chunk);
        return;
      }
      pending = Buffer.concat([pending, chunk]);
      const end = readyForQueryEnd(pending);
      if (end < 0) return;
      injected = true;
      injections++;
      client.end(Buffer.concat([pending.subarray(0, end), fatal]));
      upstream.destroy();
    });
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    port: (server.address() as net.AddressInfo).port,
    injected: () => injections,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** Where the first ReadyForQuery message ('Z') of a server byte stream ends, or -1. */
function readyForQueryEnd(buf: Buffer): number {
  let at = 0;
  while (at + 5 <= buf.length) {
    const type = String.fromCharCode(buf[at]);
    const len = buf.readInt32BE(at + 1);
    if (at + 1 + len > buf.length) return -1;
    if (type === 'Z') return at + 1 + len;
    at += 1 + len;
  }
  return -1;
}

function errorResponse(fields: [string, string][]): Buffer {
  const body = Buffer.concat([...fields.map(([k, v]) => Buffer.from(`${k}${v}\0`, 'utf8')), Buffer.from([0])]);
  const head = Buffer.alloc(5);
  head.write('E', 0);
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
}

describe('a Postgres session terminated as it finishes starting up', () => {
  let env: TestEnv;
  beforeAll(async () => {
    env = await createTestEnv();
  });
  afterAll(() => env.close());

  it('fails that one query as an outage (503) instead of killing the process; the pool goes on', async () => {
    const proxy = await startTerminatingProxy(new URL(env.config.DATABASE_URL));
    const url = new URL(env.config.DATABASE_URL);
    url.host = `127.0.0.1:${proxy.port}`;
    const ds = createDataSource({ url: url.toString(), poolSize: 4 });
    const uncaught: unknown[] = [];
    const onUncaught = (err: unknown) => uncaught.push(err);
    // Without a listener on every pooled client, the FATAL is an 'error' event nobody handles:
    // in a service that is an uncaught exception and the process exits.
    process.prependListener('uncaughtException', onUncaught);
    try {
      await ds.initialize();
      // The first connection is idle in the pool; a second query at the same time needs a new one.
      const results = await Promise.allSettled([ds.query('SELECT pg_sleep(0.2)'), ds.query('SELECT 1 AS one')]);
      expect(uncaught).toEqual([]);
      expect(proxy.injected()).toBe(1);
      const failed = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      expect(failed).toHaveLength(1);
      for (const f of failed) expect(dependencyOutage(f.reason)?.code).toBe('database_unavailable');
      // The pool dropped the dead client: the next query works on the healthy one.
      await expect(ds.query('SELECT 2 AS two')).resolves.toEqual([{ two: 2 }]);
    } finally {
      process.removeListener('uncaughtException', onUncaught);
      if (ds.isInitialized) await ds.destroy();
      await proxy.close();
    }
  });
});
