import type { Worker } from 'bullmq';

/** BullMQ's private `Worker.retryIfFailed`, as this module wraps it. */
export type RetryIfFailed = (fn: () => Promise<unknown>, opts: { delayInMs?: number; onlyEmitError?: boolean }) => Promise<unknown>;

/** A try that failed after its worker began closing: not a connection error, so BullMQ does not try again. */
export class RetryEndedByClose extends Error {
  constructor(readonly failure: unknown) {
    super(`not retried: the worker is closing (${failure instanceof Error ? failure.message : String(failure)})`);
    this.name = 'RetryEndedByClose';
  }
}

/**
 * Ends BullMQ's retries of a Redis command once its worker is closing.
 *
 * A worker retries a command that failed on a connection error ("Connection is closed.",
 * ECONNREFUSED) with no bound, pausing `runRetryDelay` between tries, except once it is closing:
 * then it skips the pause and tries again at once (bullmq 5.x, `Worker.retryIfFailed`). A closing
 * worker whose connection is already closed (a consumer the watchdog retired: `close(true)`, then
 * its connection closed; or any close that does not wait for the main loop) then fails and retries
 * on promises that reject at once, forever: its process spins at full CPU and no timer of the
 * process runs again. It was seen as a jest worker that held one of the two cores for 24 minutes
 * after its test file had stopped answering.
 *
 * Here each try made once the worker is closing is its last: its failure is handed back wrapped in
 * `RetryEndedByClose`, which BullMQ does not take for a connection error, so the retry loop ends
 * (a fetch then reports no job, a completion is left to the stalled-job check of another worker,
 * as when a process dies mid-job). Tries before the close are retried as BullMQ always did.
 */
export function endRetriesOnClose(worker: Worker): void {
  const w = worker as unknown as { retryIfFailed?: RetryIfFailed; closing?: Promise<void> };
  const retry = w.retryIfFailed;
  // A private method of BullMQ's: if an upgrade renames it, the workers refuse to start rather than run unguarded.
  if (typeof retry !== 'function') throw new Error('bullmq Worker.retryIfFailed is gone: endRetriesOnClose must be checked against this bullmq');
  w.retryIfFailed = function (this: unknown, fn, opts) {
    return retry.call(
      this,
      async () => {
        if (!w.closing) return fn();
        try {
          return await fn();
        } catch (err) {
          throw new RetryEndedByClose(err);
        }
      },
      opts,
    );
  };
}
