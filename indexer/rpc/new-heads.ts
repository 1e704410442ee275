import WebSocket from 'ws';
import type { Logger } from '../../shared/platform/logging';
import type { Metrics } from '../../shared/platform/metrics';
import { backoffDelay, sleep } from './backoff';
import { redactUrl } from './provider-stats';

/**
 * Wakes the realtime path when the node announces a new head (`eth_subscribe` "newHeads" over
 * a `ws(s)://` RPC URL), instead of waiting out the poll interval. It only says "look now": the
 * tailer still reads heads, logs and headers through the HTTP RPC, and keeps polling at
 * INDEXER_POLL_INTERVAL_MS as the fallback, so a dropped socket or a missed notification costs
 * latency, never data. The socket reconnects with backoff while the tailer runs.
 *
 * A socket can also stay open and stop announcing (hosted providers do). A quiet chain sends no
 * heads either, so silence is judged against the heads the tailer polls: when a polled head is
 * above both the highest announced one and the first one polled after the subscription took (a
 * block mined while subscribed that the socket did not announce), and `silenceMs` pass from
 * then with no notification, the socket is closed and the subscription made again.
 */
export interface HeadSignal {
  /** Resolves at the next announced head, after `ms`, or when `signal` aborts, whichever is first. */
  wait(ms: number, signal?: AbortSignal): Promise<void>;
  /** True while subscribed. */
  readonly subscribed: boolean;
  /** The head the tailer read by polling: what tells a silent subscription from a quiet chain. */
  observedHead(n: number): void;
  close(): void;
}

/** The poll-only signal: a plain sleep. */
export const pollOnly: HeadSignal = {
  wait: (ms, signal) => sleep(ms, signal),
  subscribed: false,
  observedHead: () => undefined,
  close: () => undefined,
};

/** `ws:` and `wss:` URLs of a network's RPC list. */
export const wsUrls = (urls: readonly string[]) => urls.filter((u) => /^wss?:\/\//i.test(u));

export interface NewHeadsOptions {
  backoffMs?: number;
  backoffMaxMs?: number;
  /** How long the socket may trail the polled head without a notification before it is replaced. */
  silenceMs?: number;
  /** Counts replaced silent subscriptions (`indexer_ws_silent_total`), labelled with `chainId`. */
  metrics?: Metrics;
  chainId?: number;
}

export function subscribeNewHeads(url: string, logger: Logger, opts: NewHeadsOptions = {}): HeadSignal {
  const silenceMs = opts.silenceMs ?? 30_000;
  const silentTotal = opts.metrics?.counter('indexer_ws_silent_total', 'newHeads subscriptions replaced for going silent', ['chain_id']);
  let waiters: (() => void)[] = [];
  let socket: WebSocket | null = null;
  let subscribed = false;
  let closed = false;
  let failures = 0;
  // Silence detection: the highest head announced, the first head polled since the subscription
  // took (older heads were never due on this socket), when the socket last spoke, and since when
  // a polled head has been above both of the first two without a word (null: it is not).
  let announced = -1;
  let firstPolled: number | null = null;
  let heardAt = 0;
  let behindSince: number | null = null;
  const heard = () => {
    heardAt = Date.now();
    behindSince = null;
  };
  // A head announced while nobody waits (the tailer is busy with the previous one) is kept, so
  // the next wait returns at once instead of sleeping through it until the poll interval.
  let missed = false;
  const wakeAll = () => {
    const w = waiters;
    waiters = [];
    if (w.length === 0) missed = true;
    for (const f of w) f();
  };

  const connect = () => {
    if (closed) return;
    const ws = new WebSocket(url);
    socket = ws;
    ws.on('open', () => ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] })));
    ws.on('message', (raw) => {
      let msg: { id?: number; result?: unknown; error?: { message?: string }; method?: string; params?: { result?: { number?: unknown } } };
      try {
        msg = JSON.parse(raw.toString()) as typeof msg;
      } catch {
        return;
      }
      if (msg.id === 1) {
        if (msg.error || typeof msg.result !== 'string') {
          logger.warn({ url: redactUrl(url), err: msg.error?.message }, 'newHeads subscription refused; polling only');
          closed = true;
          ws.close();
          return;
        }
        subscribed = true;
        failures = 0;
        firstPolled = null;
        heard();
        logger.info({ url: redactUrl(url) }, 'subscribed to new heads');
        // Heads announced before the subscription took (at start, or while reconnecting) were
        // never heard: look now rather than at the next poll.
        wakeAll();
      } else if (msg.method === 'eth_subscription') {
        heard();
        const n = Number(msg.params?.result?.number);
        if (Number.isSafeInteger(n) && n > announced) announced = n;
        wakeAll();
      }
    });
    ws.on('error', () => undefined);
    ws.on('close', () => {
      subscribed = false;
      if (closed) return;
      const delay = backoffDelay(failures++, opts.backoffMs ?? 200, opts.backoffMaxMs ?? 10_000);
      setTimeout(connect, delay).unref();
    });
  };
  connect();

  return {
    wait(ms, signal) {
      if (missed) {
        missed = false;
        return Promise.resolve();
      }
      if (signal?.aborted || ms <= 0) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', done);
          waiters = waiters.filter((w) => w !== done);
          resolve();
        };
        const timer = setTimeout(done, ms);
        signal?.addEventListener('abort', done, { once: true });
        waiters.push(done);
      });
    },
    get subscribed() {
      return subscribed;
    },
    observedHead(n) {
      if (!subscribed || !socket) return;
      firstPolled ??= n;
      if (n <= Math.max(announced, firstPolled)) {
        behindSince = null;
        return;
      }
      // A block mined while subscribed that the socket has not announced. Its notification may
      // just be slower than the poll: any notification within silenceMs clears this.
      const now = Date.now();
      behindSince ??= now;
      if (now - behindSince < silenceMs) return;
      const silentFor = now - heardAt;
      logger.warn({ url: redactUrl(url), head: n, announced }, `newHeads subscription silent for ${silentFor} ms; replacing it`);
      silentTotal?.inc({ chain_id: String(opts.chainId ?? 'unknown') });
      subscribed = false;
      // terminate, not close: a closing handshake with a peer that stopped answering would hold
      // the reconnect for ws's close timeout. The close event reconnects with backoff.
      socket.terminate();
    },
    close() {
      closed = true;
      wakeAll();
      socket?.close();
    },
  };
}
