import { createServer } from 'node:http';
import express from 'express';
import Redis from 'ioredis';
import { WebSocketServer, type WebSocket } from 'ws';

/**
 * The baseline of `bench:offer`: what an offer's way to the taker cannot avoid, in one process
 * like the service's roles. A POST's JSON body is published on Redis and answered 201; a Redis
 * subscriber hands each message to the WebSocket clients joined to its topic, in the Phoenix v2
 * array form the service uses. No auth, no validation, no database, no queue: the service's
 * figure over this one is the cost of its own work.
 */
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const CHANNEL = `bench:relay:${process.pid}`;
const pub = new Redis(REDIS_URL);
const sub = new Redis(REDIS_URL);
const joined = new Map<string, Set<WebSocket>>();

const app = express();
app.use(express.json({ limit: 256 * 1024 }));
app.post('/relay/:topic', (req, res, next) => {
  pub.publish(CHANNEL, JSON.stringify({ topic: req.params.topic, payload: req.body as unknown })).then(() => res.status(201).json({ ok: true }), next);
});

const server = createServer(app);
const wss = new WebSocketServer({ server, path: '/socket/websocket', perMessageDeflate: false });
wss.on('connection', (ws) => {
  ws.on('message', (raw: Buffer) => {
    const [joinRef, ref, topic, event] = JSON.parse(raw.toString()) as [string | null, string | null, string, string];
    if (event === 'phx_leave') {
      joined.get(topic)?.delete(ws);
      return;
    }
    if (event !== 'phx_join') return;
    let set = joined.get(topic);
    if (!set) joined.set(topic, (set = new Set()));
    set.add(ws);
    ws.send(JSON.stringify([joinRef, ref, topic, 'phx_reply', { status: 'ok', response: {} }]));
  });
  ws.on('close', () => {
    for (const set of joined.values()) set.delete(ws);
  });
});
sub.on('message', (_channel: string, message: string) => {
  const { topic, payload } = JSON.parse(message) as { topic: string; payload: unknown };
  const frame = JSON.stringify([null, null, topic, 'rfq_offer', payload]);
  for (const ws of joined.get(topic) ?? []) ws.send(frame);
});

void sub.subscribe(CHANNEL).then(() => {
  server.listen(0, '127.0.0.1', () => {
    const addr = server.address();
    process.stdout.write(`${JSON.stringify({ msg: 'relay listening', port: typeof addr === 'object' && addr ? addr.port : 0 })}\n`);
  });
});
process.on('SIGTERM', () => {
  wss.close();
  server.close(() => {
    pub.disconnect();
    sub.disconnect();
    process.exit(0);
  });
});
