export { defineJob, isJobSpec } from './job-catalog';
export type { JobSpec, JobPayload } from './job-catalog';
export { JobQueue } from './job-queue';
export { exportQueueDepths, QUEUE_JOB_STATES } from './queue-depth';
export { TRACE_FIELD, takeTrace, withTrace } from './job-trace';
