import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Socket, type Channel } from 'phoenix';
import WebSocket from 'ws';
import type { Express } from 'express';
import type { PrivateKeyAccount } from 'viem/accounts';
import { createApp } from '../../../api/app';
import type { ApiContext } from '../../../api/context';
import { createSocketServer, socketOnlyApp, type SocketServer } from '../../../socket';
import { closeServer } from '../../../api/server';
import type { Config } from '../../../shared/platform/config';
import { EventPublisher } from '../../../shared/events';
import { Metrics } from '../../../shared/platform/metrics';
import type { TestEnv } from '../../support/test-env';
import { bearer, newWallet, signedKeyAdd } from '../../support/wallets';
import { request } from '../../support/http';

/**
 * A socket replica in this process, on 127.0.0.1: its own HTTP server (the full API app when
 * `withApi`, else the socket-only one), its own metrics, the real identity and token services.
 */
export interface Replica {
  port: number;
  /** What phoenix.js is given: it appends `/websocket`. */
  url: string;
  wsUrl: string;
  server: http.Server;
  /** The Express app and its context (the full API when `withApi`). */
  app: Express;
  ctx: ApiContext | null;
  socket: SocketServer;
  metrics: Metrics;
  close(): Promise<void>;
}

export async function startReplica(
  env: TestEnv,
  opts: { port?: number; withApi?: boolean; /** Settings of this replica only, over the env's. */ settings?: Partial<Config> } = {},
): Promise<Replica> {
  const metrics = new Metrics(false);
  const config: Config = Object.freeze({ ...env.config, ...opts.settings });
  const deps = { config, logger: env.logger, db: env.db, redis: env.redis, metrics, queue: env.queue };
  const api = opts.withApi ? createApp(deps) : null;
  const app = api ? api.app : socketOnlyApp(deps);
  const server = http.createServer(app);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  const socket = createSocketServer(deps);
  await socket.start();
  socket.attach(server);
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `ws://127.0.0.1:${port}/socket`,
    wsUrl: `ws://127.0.0.1:${port}/socket/websocket`,
    server,
    app,
    ctx: api?.ctx ?? null,
    socket,
    metrics,
    async close() {
      await socket.close();
      server.closeAllConnections();
      await closeServer(server);
    },
  };
}

export function publisher(env: TestEnv): EventPublisher {
  return new EventPublisher({ redis: env.redis, config: env.config });
}

/** The official client, on Node's ws, with quick retries so tests do not wait on back-off. */
export function phoenixSocket(url: string, opts: Record<string, unknown> = {}): Socket {
  const s = new Socket(url, {
    transport: WebSocket as never,
    timeout: 5000,
    heartbeatIntervalMs: 30000,
    reconnectAfterMs: () => 50,
    rejoinAfterMs: () => 100,
    ...opts,
  } as never);
  s.connect();
  return s;
}

export interface Received {
  event: string;
  payload: { seq: number; [k: string]: unknown };
}

export interface Joined {
  channel: Channel;
  /** Every pushed event, in arrival order (phx_* and replies excluded). */
  events: Received[];
  /** The first join reply. */
  reply: { status: string; response: Record<string, unknown> };
  /** phx_close / phx_error frames the server sent to this channel. */
  ends: { event: string; payload: Record<string, unknown> }[];
}

/** Joins and resolves on the first reply (ok, error or timeout); records what the channel receives. */
export function join(socket: Socket, topic: string, params: object | (() => object) = {}): Promise<Joined> {
  const channel = socket.channel(topic, params as object);
  const events: Received[] = [];
  const ends: Joined['ends'] = [];
  const ch = channel as unknown as { onMessage: (event: string, payload: unknown, ref: unknown) => unknown };
  ch.onMessage = (event, payload) => {
    if (event === 'phx_close' || event === 'phx_error') {
      // the client also triggers phx_error itself when the transport drops; only record the server's
      if (payload && typeof payload === 'object' && (payload as { source?: string }).source !== 'transport')
        ends.push({ event, payload: payload as Record<string, unknown> });
    } else if (!event.startsWith('phx_') && !event.startsWith('chan_reply_')) {
      events.push({ event, payload: payload as Received['payload'] });
    }
    return payload;
  };
  return new Promise((resolve) => {
    const done = (status: string) => (response: Record<string, unknown>) => resolve({ channel, events, ends, reply: { status, response } });
    channel
      .join()
      .receive('ok', done('ok'))
      .receive('error', done('error'))
      .receive('timeout', () => done('timeout')({}));
  });
}

/** A join that must be refused: returns the reason and stops the client's automatic rejoin. */
export async function refusal(socket: Socket, topic: string, params: object = {}): Promise<string> {
  const j = await join(socket, topic, params);
  j.channel.leave();
  expect(j.reply.status).toBe('error');
  return String(j.reply.response.reason);
}

export async function waitFor(check: () => boolean, timeoutMs = 5000, what = 'condition'): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Like waitFor, for a check that has to ask Redis or the database. */
export async function waitForAsync(check: () => Promise<boolean>, timeoutMs = 5000, what = 'condition'): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function disconnect(socket: Socket): Promise<void> {
  return new Promise((resolve) => socket.disconnect(() => resolve()));
}

/** A bare ws client for what phoenix.js never sends: other vsns, stale refs, garbage. */
export class RawClient {
  readonly messages: unknown[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data, isBinary) => this.messages.push(isBinary ? data : JSON.parse(String(data))));
    this.closed = new Promise((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: String(reason) })));
  }

  static open(url: string, protocols?: string[], headers?: Record<string, string>): Promise<RawClient> {
    const ws = new WebSocket(url, protocols, { headers });
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(new RawClient(ws)));
      ws.once('error', reject);
      ws.once('unexpected-response', (_req, res) => reject(new Error(`handshake answered ${res.statusCode}`)));
    });
  }

  send(frame: unknown): void {
    this.ws.send(typeof frame === 'string' || Buffer.isBuffer(frame) ? frame : JSON.stringify(frame));
  }

  /** The first message received so far, or soon, that matches. */
  async next(match: (m: any) => boolean, timeoutMs = 3000): Promise<any> {
    let found: unknown;
    await waitFor(() => (found = this.messages.find(match)) !== undefined, timeoutMs, 'a matching message');
    return found;
  }

  close(): void {
    this.ws.terminate();
  }
}

/** A maker API key for a fresh bot wallet, issued through the real route by the organization's owner. */
export async function issueMakerKey(
  app: Express,
  owner: { wallet: PrivateKeyAccount; token: string },
  orgId: string,
  name: string,
): Promise<{ id: string; secret: string; bot: `0x${string}` }> {
  const bot = newWallet();
  const res = await request(app)
    .post('/api/maker/keys')
    .set(bearer(owner.token))
    .send(await signedKeyAdd(owner.wallet, bot, { organization: orgId, name }))
    .expect(201);
  return { id: res.body.id, secret: res.body.secret, bot: bot.address };
}

/** The sum of a metric's values with these labels (all of them when none are given). */
export async function metricValue(r: Replica, name: string, labels: Record<string, string> = {}): Promise<number> {
  const m = r.metrics.registry.getSingleMetric(name);
  if (!m) return 0;
  const { values } = await m.get();
  return values
    .filter((v) => Object.entries(labels).every(([k, want]) => String((v.labels as Record<string, unknown>)[k]) === want))
    .reduce((sum, v) => sum + v.value, 0);
}
