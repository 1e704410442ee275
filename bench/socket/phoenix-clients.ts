import WebSocket from 'ws';

/**
 * What the socket bench's client processes share: opening a raw `ws` connection joined to one
 * topic, and pacing phoenix heartbeats over many connections with one timer. Raw `ws` rather
 * than phoenix.js: at tens of thousands of connections per process the client's own memory and
 * timers (phoenix.js keeps a heartbeat timer and a channel object per socket) would crowd out
 * the server being measured on the same cores.
 */

/** Opens a connection (from `localAddress` when given) and joins `topic`; resolves once the join is answered ok. */
export function joinOne(url: string, topic: string, localAddress?: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { perMessageDeflate: false, ...(localAddress ? { localAddress } : {}) });
    const timer = setTimeout(() => {
      ws.terminate();
      reject(new Error('join timed out'));
    }, 30_000);
    ws.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    ws.once('open', () => ws.send(JSON.stringify(['1', '1', topic, 'phx_join', {}])));
    ws.once('message', (data) => {
      clearTimeout(timer);
      const m = JSON.parse(String(data)) as [unknown, unknown, string, string, { status: string }];
      if (m[3] === 'phx_reply' && m[4].status === 'ok') resolve(ws);
      else reject(new Error(`join refused: ${String(data)}`));
    });
  });
}

/** Joins one connection per topic, `batch` at a time, so the server's accept backlog is never the limit. */
export async function joinAll(url: string, topics: readonly string[], batch: number, localAddress?: string): Promise<WebSocket[]> {
  const out: WebSocket[] = [];
  for (let i = 0; i < topics.length; i += batch) {
    out.push(...(await Promise.all(topics.slice(i, i + batch).map((t) => joinOne(url, t, localAddress)))));
  }
  return out;
}

const TICK_MS = 50;

/**
 * Sends every connection a phoenix heartbeat once per `periodMs`, spread evenly over the period
 * (phoenix.js clients connect at random moments, so their heartbeats do not line up), from one
 * timer. Counts the replies, so the bench can check the server answered them all.
 */
export class HeartbeatPacer {
  private timer: NodeJS.Timeout | null = null;
  private next = 0;
  private startedAt = 0;
  private ref = 0;
  private periodMs = 30_000;
  sent = 0;
  replies = 0;

  constructor(private readonly sockets: readonly WebSocket[]) {
    for (const ws of sockets) ws.on('message', (data) => this.onMessage(data));
  }

  /** Starts (or restarts, with counts reset) heartbeats once per `periodMs` per connection. */
  start(periodMs: number): void {
    this.stop();
    this.periodMs = periodMs;
    this.sent = 0;
    this.replies = 0;
    this.startedAt = Date.now();
    this.next = 0;
    this.timer = setInterval(() => this.tick(), TICK_MS);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private tick(): void {
    const n = this.sockets.length;
    if (n === 0) return;
    const elapsed = Date.now() - this.startedAt;
    // the index every connection up to which is due by now, counting whole periods
    const due = Math.floor((elapsed / this.periodMs) * n);
    for (; this.next < due; this.next++) {
      const ws = this.sockets[this.next % n];
      if (ws.readyState !== WebSocket.OPEN) continue;
      ws.send(`[null,"${++this.ref}","phoenix","heartbeat",{}]`);
      this.sent++;
    }
  }

  private onMessage(data: WebSocket.RawData): void {
    // a heartbeat reply is the only frame on topic "phoenix"; no JSON.parse on the client's side
    const text = String(data);
    if (text.includes('"phoenix","phx_reply"')) this.replies++;
  }
}
