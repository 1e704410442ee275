import type { EventEmitter } from 'node:events';
import type { Worker } from 'bullmq';

/**
 * Keeps a BullMQ worker's late connection errors from crashing the process.
 *
 * Each of a worker's two connections (the one it shares for commands, the blocking one it makes
 * for fetching) starts by waiting for Redis to be ready and asking its version, and reports a
 * failure of that start as an 'error' event (bullmq 5.x, `RedisConnection`). Closing the worker
 * removes every listener of both. A worker closed while a connection is still starting (the
 * watchdog or a Redis-loss renewal replacing a consumer made moments before, a shutdown right
 * after the start) then has that start fail once its connection closes, and the 'error' it emits
 * has no listener: Node throws it, inside a promise, and the crash policy takes the unhandled
 * rejection for a crash and exits the process.
 *
 * Here an 'error' a closed connection emits with no listener left goes to `lost` (the workers
 * log it at debug) instead; an error with a listener is emitted as before.
 */
export function keepLateConnectionErrors(worker: Worker, lost: (err: unknown) => void): void {
  const w = worker as unknown as { connection?: EventEmitter; blockingConnection?: EventEmitter };
  for (const [name, connection] of [
    ['connection', w.connection],
    ['blockingConnection', w.blockingConnection],
  ] as const) {
    // Private fields of BullMQ's: if an upgrade renames one, the workers refuse to start rather than run unguarded.
    if (!connection || typeof connection.emit !== 'function') {
      throw new Error(`bullmq Worker.${name} is gone: keepLateConnectionErrors must be checked against this bullmq`);
    }
    const emit = connection.emit.bind(connection);
    connection.emit = (event: string | symbol, ...args: unknown[]): boolean => {
      if (event === 'error' && connection.listenerCount('error') === 0) {
        lost(args[0]);
        return false;
      }
      return emit(event, ...args);
    };
  }
}
