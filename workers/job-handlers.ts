import type { RegisteredJob } from './job-registry';
import { quoteHandlers } from './quotes/quote.handlers';
import { dutchHandlers } from './dutch/dutch.handlers';

/** One handler per catalogued job (see workers/job-catalog.ts). */
export const HANDLERS: RegisteredJob[] = [...quoteHandlers, ...dutchHandlers];
