import type { QueueEvents } from 'bullmq';

/** Resolves when the job with this id completes; rejects when it finally fails. Subscribe before enqueueing. */
export function jobFinished(events: QueueEvents, jobId: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const onDone = (e: { jobId: string }) => e.jobId === jobId && (off(), resolve());
    const onFail = (e: { jobId: string; failedReason: string }) => e.jobId === jobId && (off(), reject(new Error(e.failedReason)));
    const off = () => {
      events.off('completed', onDone);
      events.off('failed', onFail);
    };
    events.on('completed', onDone);
    events.on('failed', onFail);
  });
}
