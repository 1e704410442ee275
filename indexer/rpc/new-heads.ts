import WebSocket from 'ws';
import type { Logger } from '../../shared/platform/logging';
import { backoffDelay, sleep } from './backoff';

/**
 * Wakes the realtime path when the node announces a new head (`eth_subscribe` "newHeads" over
 * a `ws(s)://` RPC URL), instead of waiting out the poll interval. It only says "look now": the
 * tailer still reads heads, logs and headers through the HTTP RPC, and keeps polling at
 * INDEXER_POLL_INTERVAL_MS as the fallback, so a dropped socket or a missed notification costs
 * latency, never data. The socket reconnects with backoff while the tailer runs.
 */
export interface HeadSignal {
  /** Resolves at the next announced head, after `ms`, or when `signal` aborts, whichever is first. */
  wait(ms: number, signal?: AbortSignal): Promise<void>;
  /** True while subscribed. */
  readonly subscribed: boolean;
  close(): void;
}

/** The poll-only signal: a plain sleep. */
export const pollOnly: HeadSignal = { wait: (ms, signal) => sleep(ms, signal), subscribed: false, close: () => undefined };

/** `ws:` and `wss:` URLs of a network's RPC list. */
export const wsUrls = (urls: readonly string[]) => urls.filter((u) => /^wss?:\/\//i.test(u));

export function subscribeNewHeads(url: string, logger: Logger, opts: { backoffMs?: number; backoffMaxMs?: number } = {}): HeadSignal {
  let waiters: (() => void)[] = [];
  let socket: WebSocket | null = null;
  let subscribed = false;
  let closed = false;
  let failures = 0;
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
      let msg: { id?: number; result?: unknown; error?: { message?: string }; method?: string };
      try {
        msg = JSON.parse(raw.toString()) as typeof msg;
      } catch {
        return;
      }
      if (msg.id === 1) {
        if (msg.error || typeof msg.result !== 'string') {
          logger.warn({ url: redact(url), err: msg.error?.message }, 'newHeads subscription refused; polling only');
          closed = true;
          ws.close();
          return;
        }
        subscribed = true;
        failures = 0;
        logger.info({ url: redact(url) }, 'subscribed to new heads');
        // Heads announced before the subscription took (at start, or while reconnecting) were
        // never heard: look now rather than at the next poll.
        wakeAll();
      } else if (msg.method === 'eth_subscription') wakeAll();
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
    close() {
      closed = true;
      wakeAll();
      socket?.close();
    },
  };
}

/** A URL without credentials or path secrets (providers put API keys in the path). */
function redact(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}`;
  } catch {
    return 'ws';
  }
}
