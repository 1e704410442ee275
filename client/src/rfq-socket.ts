import { Socket, type Channel } from 'phoenix';
import WebSocket from 'ws';
import type { MakerRfqRequest, MakerRfqResult, RfqOfferEvent, TakerRfqRequest, TakerRfqResult } from './api.types';

/** Events of `quotes:<chain>:requests` and `rfq_maker:<address>` (shared/events/topic-table.ts). */
export interface MakerEvents {
  rfq_request: MakerRfqRequest;
  rfq_offer: RfqOfferEvent;
  rfq_result: MakerRfqResult;
}

/** Events of the taker's `rfq_stream:<stream_token>`. */
export interface TakerEvents {
  rfq_request: TakerRfqRequest;
  rfq_offer: RfqOfferEvent;
  rfq_result: TakerRfqResult;
}

export type Handlers<E> = { [K in keyof E]?: (payload: E[K]) => void };

export interface RfqSocketOptions {
  /** The socket endpoint, e.g. RfqClient.socketUrl (`ws://host:port/socket`). */
  url: string;
  /** Reconnect back-off (ms after the nth try); phoenix.js's default grows to 5 s. */
  reconnectAfterMs?: (tries: number) => number;
  /** Delay before a refused or errored channel rejoins. */
  rejoinAfterMs?: (tries: number) => number;
  heartbeatIntervalMs?: number;
  /** Push and join timeout (ms). */
  timeoutMs?: number;
  /** Sees every frame the socket receives (replies and phx_* included): for logging and audits. */
  onMessage?: (topic: string, event: string, payload: unknown) => void;
}

export interface SubscribeOptions<E> {
  /** Join params: `token` (a session, maker key or delegate bearer) or `api_key`; never `last_seq` (the helper owns it). */
  params?: Record<string, unknown>;
  /**
   * Resume after this seq on the first join (a seq the caller persisted). Absent: a shared
   * topic starts live, a token topic replays from its first event (docs/SOCKETS.md).
   */
  lastSeq?: number;
  on: Handlers<E>;
  /**
   * The server could not replay what was missed (history trimmed: `recovered: false`); the
   * subscription continues live from `seq`. Resynchronise by REST (e.g. RfqClient.pollQuote).
   */
  onResync?: (seq: number) => void;
}

export interface Subscription {
  readonly topic: string;
  /** The seq of the last event delivered (or the join's starting point). */
  readonly lastSeq: number | undefined;
  leave(): Promise<void>;
}

interface JoinReply {
  seq?: number;
  recovered?: boolean;
}

/**
 * The socket over the official phoenix.js client (ws transport on Node). Each subscription
 * remembers the last seq it delivered and rejoins with it after every reconnect, so the server
 * replays exactly what was missed; anything at or below that seq (a replay overlapping what
 * already arrived) is dropped, so the caller sees every event once and in order.
 */
export class RfqSocket {
  readonly socket: Socket;

  constructor(opts: RfqSocketOptions) {
    this.socket = new Socket(opts.url, {
      transport: WebSocket as never,
      heartbeatIntervalMs: opts.heartbeatIntervalMs ?? 15000,
      ...(opts.timeoutMs ? { timeout: opts.timeoutMs } : {}),
      ...(opts.reconnectAfterMs ? { reconnectAfterMs: opts.reconnectAfterMs } : {}),
      ...(opts.rejoinAfterMs ? { rejoinAfterMs: opts.rejoinAfterMs } : {}),
    });
    if (opts.onMessage) {
      const seen = opts.onMessage;
      this.socket.onMessage((m: object) => {
        const { topic, event, payload } = m as { topic: string; event: string; payload: unknown };
        seen(topic, event, payload);
      });
    }
    this.socket.connect();
  }

  /**
   * Joins `topic` and resolves once the server accepts; rejects (and stops retrying) when the
   * first join is refused or times out. Later rejoins, after reconnects, resume from the last seq.
   */
  subscribe<E>(topic: string, opts: SubscribeOptions<E>): Promise<Subscription> {
    let last = opts.lastSeq;
    const params = { ...opts.params };
    // phoenix.js calls this on every (re)join: the server then replays from the last delivered seq.
    const channel: Channel = this.socket.channel(topic, () => (last === undefined ? params : { ...params, last_seq: last }));
    for (const event of Object.keys(opts.on) as (keyof E & string)[]) {
      const handler = opts.on[event] as ((p: unknown) => void) | undefined;
      channel.on(event, (payload: { seq?: unknown }) => {
        if (typeof payload?.seq === 'number') {
          if (last !== undefined && payload.seq <= last) return; // already delivered
          last = payload.seq;
        }
        handler?.(payload);
      });
    }
    const subscription: Subscription = {
      topic,
      get lastSeq() {
        return last;
      },
      leave: () =>
        new Promise<void>((resolve) => {
          channel
            .leave()
            .receive('ok', () => resolve())
            .receive('timeout', () => resolve())
            .receive('error', () => resolve());
        }),
    };

    let first = true;
    return new Promise((resolve, reject) => {
      channel
        .join()
        .receive('ok', (reply: JoinReply) => {
          // The reply precedes any replayed event and names the seq the channel continues after.
          if (typeof reply?.seq === 'number') {
            if (reply.recovered === false && last !== undefined) opts.onResync?.(reply.seq);
            last = reply.seq;
          }
          if (first) {
            first = false;
            resolve(subscription);
          }
        })
        .receive('error', (reason: unknown) => {
          if (!first) return;
          channel.leave();
          reject(new Error(`join ${topic} refused: ${JSON.stringify(reason)}`));
        })
        .receive('timeout', () => {
          if (!first) return;
          channel.leave();
          reject(new Error(`join ${topic} timed out`));
        });
    });
  }

  /** Closes the connection for good (no reconnect). */
  disconnect(): Promise<void> {
    return new Promise((resolve) => this.socket.disconnect(() => resolve()));
  }
}
