import type { RegisteredJob } from './job-registry';

/** One handler per catalogued job (see shared/jobs/jobs.ts). */
export const HANDLERS: RegisteredJob[] = [];
