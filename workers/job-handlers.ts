import type { RegisteredJob } from './job-registry';
import { loanHandlers } from './loans/loan.handlers';
import { quoteHandlers } from './quotes/quote.handlers';

/** One handler per catalogued job (see workers/job-catalog.ts). */
export const HANDLERS: RegisteredJob[] = [...quoteHandlers, ...loanHandlers];
