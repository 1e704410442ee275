import type { AddressInfo } from 'node:net';
import WebSocket, { WebSocketServer, type RawData } from 'ws';

/**
 * A WebSocket proxy on 127.0.0.1 in front of a node's ws endpoint: every frame is forwarded both
 * ways, until `silence()` makes the connections open at that moment drop the node's
 * `eth_subscription` notifications while staying open, as a hosted provider's socket that goes
 * quiet does. Connections made afterwards forward everything again.
 */
export interface WsProxy {
  url: string;
  /** Connections accepted so far. */
  readonly connections: number;
  /** `eth_subscribe` requests forwarded so far. */
  readonly subscribes: number;
  silence(): void;
  close(): Promise<void>;
}

export async function startWsProxy(target: string): Promise<WsProxy> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((r) => wss.once('listening', () => r()));
  const muted = new WeakSet<WebSocket>();
  const upstreams = new Set<WebSocket>();
  let connections = 0;
  let subscribes = 0;

  wss.on('connection', (client) => {
    connections++;
    const upstream = new WebSocket(target);
    upstreams.add(upstream);
    const pending: RawData[] = [];
    client.on('message', (raw) => {
      if ((JSON.parse(raw.toString()) as { method?: string }).method === 'eth_subscribe') subscribes++;
      if (upstream.readyState === WebSocket.OPEN) upstream.send(raw.toString());
      else pending.push(raw);
    });
    upstream.on('open', () => {
      for (const raw of pending.splice(0)) upstream.send(raw.toString());
    });
    upstream.on('message', (raw) => {
      const notification = (JSON.parse(raw.toString()) as { method?: string }).method === 'eth_subscription';
      if (notification && muted.has(client)) return;
      if (client.readyState === WebSocket.OPEN) client.send(raw.toString());
    });
    for (const sock of [client, upstream]) sock.on('error', () => undefined);
    client.on('close', () => upstream.terminate());
    upstream.on('close', () => {
      upstreams.delete(upstream);
      client.terminate();
    });
  });

  return {
    url: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}`,
    get connections() {
      return connections;
    },
    get subscribes() {
      return subscribes;
    },
    silence() {
      for (const c of wss.clients) muted.add(c);
    },
    async close() {
      for (const c of wss.clients) c.terminate();
      for (const u of upstreams) u.terminate();
      await new Promise<void>((r) => wss.close(() => r()));
    },
  };
}
