import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';

/** What a connection hands its owner: every message that is not the reply to one of its joins, with the time it was read. */
export type PhoenixEventHandler = (topic: string, event: string, payload: Record<string, unknown>, at: number) => void;

/**
 * One raw Phoenix v2 (JSON array) connection for benches: joins topics (resolving on the join's
 * reply, rejecting on a refusal) and hands every other message to `onEvent` with the
 * `performance.now()` of its arrival. Raw rather than the `phoenix` client so that a bench pays
 * no client-side timers or channel objects per topic, and reads each message's time first.
 */
export class PhoenixConnection {
  private ref = 0;
  private readonly pending = new Map<string, { resolve: () => void; reject: (e: Error) => void }>();
  private readonly joinRefs = new Map<string, string>();
  private readonly heartbeat: NodeJS.Timeout;

  private constructor(
    private readonly ws: WebSocket,
    onEvent: PhoenixEventHandler,
  ) {
    // The socket tier closes a connection that sends nothing for SOCKET_IDLE_TIMEOUT_MS (60 s), as
    // phoenix.js's heartbeat prevents; a bench's connection can idle longer than that between samples.
    this.heartbeat = setInterval(() => ws.send(JSON.stringify([null, String(++this.ref), 'phoenix', 'heartbeat', {}])), 20_000);
    this.heartbeat.unref();
    ws.once('close', (code: number) => {
      clearInterval(this.heartbeat);
      if (!this.closing) process.stderr.write(`phoenix connection closed by the server (code ${code}): its channels hear nothing more\n`);
    });
    ws.on('message', (raw: Buffer) => {
      const at = performance.now();
      const [, ref, topic, event, payload] = JSON.parse(raw.toString()) as [string | null, string | null, string, string, Record<string, unknown>];
      const waiting = event === 'phx_reply' && ref !== null ? this.pending.get(ref) : undefined;
      if (waiting && ref !== null) {
        this.pending.delete(ref);
        if ((payload as { status?: string }).status === 'ok') waiting.resolve();
        else waiting.reject(new Error(`join of ${topic} refused: ${JSON.stringify(payload)}`));
      } else onEvent(topic, event, payload, at);
    });
  }

  /** Connects to a socket endpoint (`ws://host:port/socket`). */
  static open(socketUrl: string, onEvent: PhoenixEventHandler): Promise<PhoenixConnection> {
    const ws = new WebSocket(`${socketUrl}/websocket?vsn=2.0.0`, { perMessageDeflate: false });
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(new PhoenixConnection(ws, onEvent)));
      ws.once('error', reject);
    });
  }

  join(topic: string, payload: Record<string, unknown> = {}): Promise<void> {
    const ref = String(++this.ref);
    return new Promise((resolve, reject) => {
      this.pending.set(ref, { resolve, reject });
      this.joinRefs.set(topic, ref);
      this.ws.send(JSON.stringify([ref, ref, topic, 'phx_join', payload]));
    });
  }

  /** Leaves `topic` (a connection may hold only so many channels); the reply is not waited for. */
  leave(topic: string): void {
    const joinRef = this.joinRefs.get(topic);
    if (joinRef === undefined) return;
    this.joinRefs.delete(topic);
    this.ws.send(JSON.stringify([joinRef, String(++this.ref), topic, 'phx_leave', {}]));
  }

  private closing = false;

  close(): void {
    this.closing = true;
    clearInterval(this.heartbeat);
    this.ws.terminate();
  }
}
