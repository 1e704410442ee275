import type http from 'node:http';
import type { Duplex } from 'node:stream';
import type { Tracer } from '@opentelemetry/api';
import { WebSocketServer, type RawData, type Server as WsServer, type WebSocket } from 'ws';
import type { Config } from '../shared/platform/config';
import {
  tokenTopicKey,
  WEBSOCKET_PATH,
  type BearerResolver,
  type JoinCredentials,
  type RegistrationLookup,
  type RevokedAmong,
  type StreamTokenVerifier,
} from '../shared/events';
import { EventHistory, RelayAnchors } from '../shared/platform/event-bus';
import type { Logger } from '../shared/platform/logging';
import type { Metrics } from '../shared/platform/metrics';
import { closeRedis, createSubscriber, onMessage, subscribeTo, type Redis } from '../shared/platform/redis';
import type { StreamKind } from '../shared/platform/stream-tokens';
import { ChannelIndex } from './channel-index';
import { clientAddress } from '../shared/platform/http/client-address';
import { ConnectionLimiter, type ConnectionRefusal } from './connection-limiter';
import { CredentialCache } from './credential-cache';
import { KeyRecheck, type RemovedKeySweep } from './key-recheck';
import { negotiateVsn, type Vsn } from './phoenix-codec';
import { ReplayGate } from './replay-gate';
import { ReplicaSocket } from './replica-socket';
import type { Channel } from './socket-channel';
import { SocketConnection } from './socket-connection';
import { SocketMetrics } from './socket-metrics';
import type { SocketRuntime } from './socket-runtime';
import { TopicHub } from './topic-hub';

/** The websocket transport's path; `/socket` is what clients configure (phoenix.js appends `/websocket`). */
const AUTH_TOKEN_PREFIX = 'base64url.bearer.phx.';

export interface SocketServerDeps {
  config: Config;
  logger: Logger;
  /** Commands (history reads); the server opens its own subscriber connection. */
  redis: Redis;
  metrics: Metrics;
  identity: BearerResolver;
  streams: StreamTokenVerifier;
  registrations: RegistrationLookup & RemovedKeySweep;
  /** The database's answer to "which of these API keys are gone?", for the periodic re-check. */
  keyRevocations: { revokedAmong: RevokedAmong };
  /** Pub/sub channels announcing revoked API keys (`{kind, keyId}`) and stream tokens (`{kind, hash}`). */
  revocations: { keys: string; streamTokens: string };
  /** The socket role's tracer, when the process traces: each traced live event's delivery is a span. */
  tracer?: Tracer;
}

/** What a connection that offered no credentials at connect holds: one object for all of them. */
const NO_CREDENTIALS: JoinCredentials = Object.freeze({});

/** How often a refused upgrade is logged at most: the metric counts every one, the log stays readable under a flood. */
const REFUSAL_LOG_EVERY_MS = 10_000;

/**
 * A Phoenix-channels socket replica: any number of them run behind a load balancer, attached
 * to the API's HTTP server or to their own. They hold no state but joined channels; history
 * and seq live in Redis, so a client may rejoin on any replica.
 */
export class SocketServer {
  private readonly wss: WsServer<typeof ReplicaSocket>;
  private readonly conns = new Set<SocketConnection>();
  private readonly sub: Redis;
  private readonly rt: SocketRuntime;
  private readonly attached = new Set<http.Server>();
  private readonly limiter: ConnectionLimiter;
  private readonly credentials: CredentialCache;
  private readonly recheck: KeyRecheck;
  private sweeper: NodeJS.Timeout | null = null;
  private closing: Promise<void> | null = null;
  private refusalLog = { at: 0, since: 0 };

  constructor(private readonly deps: SocketServerDeps) {
    const { config, logger } = deps;
    const metrics = new SocketMetrics(deps.metrics);
    this.sub = createSubscriber(config);
    this.sub.on('error', (err: Error) => logger.warn({ err: err.message }, 'socket subscriber connection error'));
    onMessage(this.sub, (channel, message) => this.onRevocation(channel, message));
    this.limiter = new ConnectionLimiter(config.SOCKET_MAX_CONNECTIONS, config.SOCKET_MAX_CONNECTIONS_PER_IP);
    this.credentials = new CredentialCache(deps.identity, {
      ttlMs: config.SOCKET_CREDENTIAL_CACHE_MS,
      maxEntries: config.SOCKET_CREDENTIAL_CACHE_MAX_ENTRIES,
      metrics,
    });
    const index = new ChannelIndex();
    this.rt = {
      settings: {
        maxChannels: config.SOCKET_MAX_CHANNELS,
        maxBadFrames: config.SOCKET_MAX_BAD_FRAMES,
        maxBufferedBytes: config.SOCKET_MAX_BUFFERED_BYTES,
        joinBufferEvents: config.SOCKET_JOIN_BUFFER_EVENTS,
        joinBurst: config.SOCKET_JOIN_BURST,
        joinRatePerMinute: config.SOCKET_JOIN_RATE_PER_MINUTE,
        maxJoinRefusals: config.SOCKET_MAX_JOIN_REFUSALS,
        replayBudgetBytes: config.SOCKET_REPLAY_BUDGET_BYTES,
        replayBudgetWindowMs: config.SOCKET_REPLAY_BUDGET_WINDOW_MS,
      },
      logger,
      metrics,
      hub: new TopicHub(this.sub, config.REDIS_PREFIX, metrics, logger, (chs) => this.repairAll(chs), deps.tracer),
      lookups: { streams: deps.streams, identity: this.credentials, registrations: deps.registrations },
      history: new EventHistory(deps.redis, config),
      anchors: new RelayAnchors(deps.redis, config.REDIS_PREFIX),
      gate: new ReplayGate(config.SOCKET_REPLAY_CONCURRENCY),
      index,
    };
    this.recheck = new KeyRecheck({
      index,
      revokedAmong: (ids) => deps.keyRevocations.revokedAmong(ids),
      registrations: deps.registrations,
      onRevoked: (ids) => this.revokeKeys(ids),
      intervalMs: config.SOCKET_KEY_RECHECK_INTERVAL_MS,
      logger,
      metrics,
    });
    // Compression off and no client tracking by ws: per-connection memory is what limits a replica.
    this.wss = new WebSocketServer({
      WebSocket: ReplicaSocket,
      noServer: true,
      perMessageDeflate: false,
      clientTracking: false,
      maxPayload: config.SOCKET_MAX_FRAME_BYTES,
      handleProtocols: (protocols) => (protocols.has('phoenix') ? 'phoenix' : false),
    });
  }

  /** Subscribes to revocations and starts the sweep; call once before `attach`. */
  async start(): Promise<void> {
    await subscribeTo(this.sub, this.deps.revocations.keys, this.deps.revocations.streamTokens);
    this.sweeper = setInterval(() => this.sweep(), this.deps.config.SOCKET_SWEEP_INTERVAL_MS);
    this.sweeper.unref();
    this.recheck.start();
  }

  /** Serves `/socket/websocket` upgrades of this HTTP server; other upgrade paths get a 404. */
  attach(server: http.Server): void {
    server.on('upgrade', this.onUpgrade);
    this.attached.add(server);
  }

  get connectionCount(): number {
    return this.conns.size;
  }

  /** Refuses new connections, closes the open ones with 1001 (clients reconnect elsewhere), drops Redis. */
  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private readonly onUpgrade = (req: http.IncomingMessage, socket: Duplex, head: Buffer): void => {
    // until ws owns the socket, a reset from the client must not become an uncaught error
    const onError = () => socket.destroy();
    socket.on('error', onError);
    if (this.closing) return reject(socket, 503, 'Service Unavailable');
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://localhost');
    } catch {
      return reject(socket, 400, 'Bad Request');
    }
    if (url.pathname !== WEBSOCKET_PATH) return reject(socket, 404, 'Not Found');
    const vsn = negotiateVsn(url.searchParams.get('vsn'));
    if (vsn === null) return reject(socket, 403, 'Forbidden');
    const address = clientAddress(req, this.deps.config.TRUST_PROXY_HOPS);
    const refused = this.limiter.acquire(address);
    if (refused) {
      this.onRefused(refused, address);
      return refused === 'per_ip' ? reject(socket, 429, 'Too Many Requests') : reject(socket, 503, 'Service Unavailable');
    }
    // The slot is the TCP socket's: given back however it ends, handshake completed or not.
    // Until the handshake completes this listener does it; from then on the connection's close
    // (ws emits it once the TCP socket closed), so no closure stays behind per connection.
    const release = () => this.limiter.release(address);
    socket.once('close', release);
    const token = url.searchParams.get('token') ?? authTokenFromProtocols(req.headers['sec-websocket-protocol']);
    const apiKey = url.searchParams.get('api_key');
    const creds: JoinCredentials = token || apiKey ? {} : NO_CREDENTIALS;
    if (token) creds.token = token;
    if (apiKey) creds.api_key = apiKey;
    this.wss.handleUpgrade(req, socket, head, (ws) => {
      socket.off('error', onError);
      socket.off('close', release);
      this.onConnection(ws, vsn, creds, address);
    });
  };

  private onConnection(ws: ReplicaSocket, vsn: Vsn, creds: JoinCredentials, address: string): void {
    if (this.closing) {
      ws.once('close', () => this.limiter.release(address));
      ws.close(1001, 'server shutting down');
      return;
    }
    const conn = new SocketConnection(ws, vsn, creds, address, this.rt);
    ws.conn = conn;
    this.conns.add(conn);
    this.rt.metrics.connections.inc();
    this.rt.metrics.connectionsOpened.inc();
    ws.on('message', this.listeners.message);
    ws.on('error', this.listeners.error);
    ws.on('close', this.listeners.close);
  }

  /** One set of ws listeners for every connection of this replica: ws calls them with the socket as `this`. */
  private readonly listeners = ((server: SocketServer) => ({
    message(this: WebSocket, data: RawData, isBinary: boolean): void {
      (this as ReplicaSocket).conn?.receive(data, isBinary);
    },
    error(this: WebSocket, err: Error): void {
      (this as ReplicaSocket).conn?.socketError(err);
    },
    close(this: WebSocket): void {
      const conn = (this as ReplicaSocket).conn;
      if (conn) server.connectionClosed(conn);
    },
  }))(this);

  private connectionClosed(conn: SocketConnection): void {
    this.conns.delete(conn);
    conn.closed();
    this.limiter.release(conn.address);
    this.rt.metrics.connections.dec();
  }

  private sweep(): void {
    const now = Date.now();
    const idleBefore = now - this.deps.config.SOCKET_IDLE_TIMEOUT_MS;
    for (const c of this.conns) if (c.lastSeen < idleBefore) c.disconnect(1000, 'idle timeout: no heartbeat', 'idle');
    for (const ch of this.rt.index.expiredAt(now)) ch.owner.end(ch, 'close', 'credential expired', 'expired');
  }

  private onRevocation(channel: string, message: string): void {
    const { keys, streamTokens } = this.deps.revocations;
    if (channel !== keys && channel !== streamTokens) return;
    try {
      const body = JSON.parse(message) as { keyId?: unknown; kind?: unknown; hash?: unknown };
      if (channel === keys && typeof body.keyId === 'string') {
        this.revokeKeys([body.keyId]);
      } else if (channel === streamTokens && typeof body.kind === 'string' && typeof body.hash === 'string') {
        for (const ch of this.rt.hub.channelsOf(tokenTopicKey(body.kind as StreamKind, body.hash)))
          ch.owner.end(ch, 'close', 'stream token revoked', 'revoked');
      }
    } catch (err) {
      this.rt.logger.warn({ err, channel }, 'unreadable revocation message');
    }
  }

  /** Keys found removed (announced, or found by the re-check): their lookups are forgotten, their channels end. */
  private revokeKeys(keyIds: string[]): void {
    this.credentials.forgetKeys(keyIds);
    for (const id of keyIds) for (const ch of this.rt.index.withKey(id)) ch.owner.end(ch, 'close', 'api key revoked', 'revoked');
  }

  private onRefused(reason: ConnectionRefusal, address: string): void {
    this.rt.metrics.upgradesRefused.inc({ reason });
    const now = Date.now();
    this.refusalLog.since++;
    if (now - this.refusalLog.at < REFUSAL_LOG_EVERY_MS) return;
    this.rt.logger.warn({ reason, address, refused_since_last_log: this.refusalLog.since }, 'socket upgrade refused by a connection cap');
    this.refusalLog = { at: now, since: 0 };
  }

  /** The subscriber reconnected (or a shard's was replaced): live events published meanwhile never reached us. */
  private repairAll(channels: Channel[]): void {
    for (const ch of channels) ch.resubscribed();
  }

  private async shutdown(): Promise<void> {
    if (this.sweeper) clearInterval(this.sweeper);
    await this.recheck.stop();
    for (const s of this.attached) s.off('upgrade', this.onUpgrade);
    for (const c of this.conns) c.disconnect(1001, 'server shutting down', 'shutdown');
    const deadline = Date.now() + 2000;
    while (this.conns.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    // clients that did not answer the close frame in time
    for (const c of this.conns) c.ws.terminate();
    await closeRedis(this.sub);
  }
}

function reject(socket: Duplex, status: number, text: string): void {
  if (socket.writable) socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
  else socket.destroy();
}

/** phoenix.js `authToken`: a subprotocol `base64url.bearer.phx.<base64 of the token>`. */
function authTokenFromProtocols(header: string | undefined): string | null {
  if (!header) return null;
  for (const p of header.split(',')) {
    const v = p.trim();
    if (v.startsWith(AUTH_TOKEN_PREFIX)) {
      const token = Buffer.from(v.slice(AUTH_TOKEN_PREFIX.length), 'base64').toString('utf8');
      return token.length > 0 ? token : null;
    }
  }
  return null;
}
