import http from 'node:http';
import path from 'node:path';
import { writeHeapSnapshot } from 'node:v8';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { SocketServer } from '../../socket';
import { loadConfig } from '../../shared/platform/config';
import { PubsubRegistrations } from '../../shared/events';
import { createLogger } from '../../shared/platform/logging';
import { Metrics } from '../../shared/platform/metrics';
import { closeRedis, createRedis } from '../../shared/platform/redis';
import { StreamTokens } from '../../shared/platform/stream-tokens';

/**
 * The benchmark's server: one socket replica in a process of its own, so its RSS is the socket
 * tier's alone. Real ws server, hub, Redis subscriber and stream-token checks; the bench joins
 * only token-named topics, so bearer resolution (identity, Postgres) is stubbed out and refuses.
 * Talks to the parent over IPC: `ready` with the port; answers `memory` with memory after GC,
 * `handed-off` with when each fan-out finished, and `snapshot` once it wrote a heap snapshot.
 */
async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const logger = createLogger({ level: 'warn' });
  const redis = createRedis(config);
  const streams = new StreamTokens(redis, config.REDIS_PREFIX);
  const metrics = new Metrics(false);
  const socket = new SocketServer({
    config,
    logger,
    redis,
    metrics,
    identity: { resolveBearer: async () => null, hasMakerRights: async () => false },
    streams,
    registrations: new PubsubRegistrations(redis, config),
    // no API keys in this bench: nothing for the periodic re-check to find
    keyRevocations: { revokedAmong: async () => [] },
    revocations: { keys: `${config.REDIS_PREFIX}identity:revocations`, streamTokens: streams.revocationChannel },
  });
  await socket.start();
  // When each fan-out finished on the server (its last frame handed to the kernel), as an epoch
  // time with sub-millisecond precision that the parent can compare with its own clock.
  const handedOff: number[] = [];
  const fanout = metrics.histogram('socket_fanout_seconds', '');
  const observe = fanout.observe.bind(fanout);
  fanout.observe = ((v: number) => {
    handedOff.push(performance.timeOrigin + performance.now());
    observe(v);
  }) as typeof fanout.observe;
  const server = http.createServer((_req, res) => res.writeHead(404).end());
  server.listen(0, '127.0.0.1', 2048);
  await new Promise((r) => server.once('listening', r));
  socket.attach(server);

  process.on('message', (msg: { type: string; dir?: string; label?: string }) => {
    if (msg.type === 'memory') {
      // two collections: the first can leave garbage that only the second frees
      global.gc?.();
      global.gc?.();
      const m = process.memoryUsage();
      process.send!({ type: 'memory', rss: m.rss, heapUsed: m.heapUsed, external: m.external, connections: socket.connectionCount });
    } else if (msg.type === 'snapshot') {
      global.gc?.();
      writeHeapSnapshot(path.join(msg.dir!, `socket-${msg.label}.heapsnapshot`));
      process.send!({ type: 'snapshot' });
    } else if (msg.type === 'handed-off') {
      process.send!({ type: 'handed-off', at: handedOff });
    } else if (msg.type === 'stop') {
      void socket
        .close()
        .then(() => closeRedis(redis))
        .finally(() => process.exit(0));
    }
  });
  process.send!({ type: 'ready', port: (server.address() as AddressInfo).port });
}

main().catch((err: unknown) => {
  process.stderr.write(`bench server failed: ${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
