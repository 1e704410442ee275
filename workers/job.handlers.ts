import type { BoundJob } from './job-binding';
import { orderHandlers } from './orders/order.handlers';
import { quoteHandlers } from './quotes/quote.handlers';
import { exploreHandlers } from './explore/explore.handlers';
import { dutchHandlers } from './dutch/dutch.handlers';

/** One handler per catalogued job (see workers/job-catalog.ts). */
export const HANDLERS: BoundJob[] = [...quoteHandlers, ...dutchHandlers, ...exploreHandlers, ...orderHandlers];
