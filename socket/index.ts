import type http from 'node:http';
import type { DataSource } from 'typeorm';
import type { Config } from '../shared/platform/config';
import { dropKeyRegistrations, PubsubRegistrations, WEBSOCKET_PATH } from '../shared/events';
import { IdentityService, KeyRevocations, revocationChannel } from '../shared/identity';
import type { Lifecycle } from '../shared/platform/lifecycle';
import type { Logger } from '../shared/platform/logging';
import type { Metrics } from '../shared/platform/metrics';
import type { Redis } from '../shared/platform/redis';
import { SignedStreamTokens, StreamTokens, streamTokenKeys } from '../shared/platform/stream-tokens';
import { QuoteStreamTokens } from '../shared/quotes';
import { roleTracer, type Tracing } from '../shared/platform/tracing';
import { SocketServer } from './socket-server';

export { SocketServer } from './socket-server';
export { SOCKET_PATH, WEBSOCKET_PATH } from '../shared/events';
export type { SocketServerDeps } from './socket-server';
export type { StreamTokenVerifier } from '../shared/events';
export { socketOnlyApp } from './socket-http';

export interface SocketDeps {
  config: Config;
  logger: Logger;
  db: DataSource;
  redis: Redis;
  metrics: Metrics;
  tracing?: Tracing;
}

/** Builds a socket replica over the process's infrastructure, with the real identity and token services. */
export function createSocketServer(deps: SocketDeps): SocketServer {
  const streams = new StreamTokens(deps.redis, deps.config.REDIS_PREFIX);
  return new SocketServer({
    config: deps.config,
    logger: deps.logger,
    redis: deps.redis,
    metrics: deps.metrics,
    identity: new IdentityService({ ...deps, dropKeyRegistrations }),
    // A quote's token is signed and checked against its row (revocation by state); an older, recorded
    // one also verifies against its row, so a Redis that lost its data loses no taker's stream.
    streams: new QuoteStreamTokens(streams, new SignedStreamTokens(streamTokenKeys(deps.config)), deps.db, deps.config.QUOTE_STREAM_GRACE_SECONDS),
    registrations: new PubsubRegistrations(deps.redis, deps.config),
    keyRevocations: new KeyRevocations(deps.db),
    revocations: { keys: revocationChannel(deps.config.REDIS_PREFIX), streamTokens: streams.revocationChannel },
    tracer: roleTracer(deps.tracing, 'socket'),
  });
}

/**
 * The socket role: serves `/socket/websocket` on `server` (the API's, or a socket-only one)
 * and closes before it, so clients get a 1001 close frame rather than a reset.
 */
export async function startSocket(deps: SocketDeps & { lifecycle: Lifecycle }, server: http.Server): Promise<SocketServer> {
  const socket = createSocketServer(deps);
  await socket.start();
  socket.attach(server);
  deps.lifecycle.onClose('socket server', () => socket.close());
  const addr = server.address();
  deps.logger.info({ path: WEBSOCKET_PATH, port: typeof addr === 'object' && addr ? addr.port : null }, 'socket attached');
  return socket;
}
