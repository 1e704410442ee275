export { defineJob, isJobSpec } from './job-spec';
export type { JobSpec, JobPayload } from './job-spec';
export { JobQueue } from './job-queue';
export { exportQueueDepths, QUEUE_JOB_STATES } from './queue-depth';
export { TRACE_FIELD, takeTrace, withTrace } from './job-trace';
