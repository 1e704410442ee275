import { Socket, type Channel } from 'phoenix';
import WebSocket from 'ws';
import { isEpochStart } from '../../shared/platform/redis';

export interface RecordedEvent {
  seq: number;
  event: string;
  payload: Record<string, unknown>;
  /** When this client received it (Date.now() in the test process). */
  at: number;
}

/**
 * One client of one topic, through the official Phoenix client, that rejoins with the last seq
 * it saw after every disconnect (as the spec asks of clients) and checks the stream it gets:
 * each seq exactly one more than the last, whatever replica or replay delivered it.
 */
export class FeedRecorder {
  readonly events: RecordedEvent[] = [];
  /** Seqs skipped (a jump forward, or a rejoin the server could not replay). */
  gaps = 0;
  /** Seqs skipped in delivery without the server saying so (a jump forward within one join): never acceptable. */
  skipped = 0;
  /** Rejoins answered `recovered: false`: the server said it could not replay what followed the client's last seq. */
  notRecovered = 0;
  /** Seqs delivered again. */
  duplicates = 0;
  /** Successful joins, the first included. */
  joins = 0;
  /**
   * Rejoins answered `recovered: false` at the floor of a new Redis epoch: the server said the
   * topic started again after a Redis data loss (and replays what it has of the new epoch).
   * Counted here, not as gaps: what was lost is the server's loss, not a seq skipped in delivery.
   */
  epochRestarts = 0;
  private lastSeq: number | null = null;
  private readonly socket: Socket;
  private readonly channel: Channel;

  private constructor(url: string, topic: string, credentials: Record<string, string>) {
    this.socket = new Socket(url, {
      transport: WebSocket as never,
      timeout: 5000,
      heartbeatIntervalMs: 30_000,
      reconnectAfterMs: () => 100,
      rejoinAfterMs: () => 100,
    } as never);
    this.socket.connect();
    // Called on every (re)join: the first join starts live, later ones resume after what was seen.
    this.channel = this.socket.channel(topic, () => (this.lastSeq === null ? credentials : { ...credentials, last_seq: this.lastSeq }));
    const ch = this.channel as unknown as { onMessage: (event: string, payload: unknown, ref: unknown) => unknown };
    ch.onMessage = (event, payload) => {
      if (!event.startsWith('phx_') && !event.startsWith('chan_reply_')) this.receive(event, payload as Record<string, unknown>);
      return payload;
    };
  }

  /** Connects and joins; resolves on the first accepted join. */
  static open(url: string, topic: string, credentials: Record<string, string>): Promise<FeedRecorder> {
    const r = new FeedRecorder(url, topic, credentials);
    return new Promise((resolve, reject) => {
      r.channel
        .join()
        .receive('ok', (reply: { seq: number; recovered?: boolean }) => {
          r.onJoined(reply);
          resolve(r);
        })
        .receive('error', (reason: unknown) => reject(new Error(`join ${topic} refused: ${JSON.stringify(reason)}`)));
    });
  }

  /** The events of one name with their receive times. */
  received(event: string): RecordedEvent[] {
    return this.events.filter((e) => e.event === event);
  }

  /** The events of one name, e.g. every `rfq_request` payload. */
  named(event: string): Record<string, unknown>[] {
    return this.events.filter((e) => e.event === event).map((e) => e.payload);
  }

  close(): Promise<void> {
    this.channel.leave();
    return new Promise((resolve) => this.socket.disconnect(() => resolve()));
  }

  private onJoined(reply: { seq: number; recovered?: boolean }): void {
    this.joins++;
    if (this.lastSeq === null) {
      this.lastSeq = reply.seq;
      return;
    }
    if (reply.recovered !== false) return;
    this.notRecovered++;
    // The server no longer had what came after our last seq: that much was lost to us (unless the
    // topic restarted in a new Redis epoch, which the server says by answering at its floor).
    if (reply.seq > this.lastSeq && isEpochStart(reply.seq + 1)) this.epochRestarts++;
    else this.gaps += Math.max(1, reply.seq - this.lastSeq);
    this.lastSeq = reply.seq;
  }

  private receive(event: string, payload: Record<string, unknown>): void {
    const seq = Number(payload.seq);
    if (this.lastSeq !== null && seq <= this.lastSeq) {
      this.duplicates++;
      return;
    }
    if (this.lastSeq !== null && seq > this.lastSeq + 1) {
      this.gaps += seq - this.lastSeq - 1;
      this.skipped += seq - this.lastSeq - 1;
    }
    this.lastSeq = seq;
    this.events.push({ seq, event, payload, at: Date.now() });
  }
}
