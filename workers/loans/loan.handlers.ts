import { loanStreamOpenJob, openLoanStream } from '../../shared/loans';
import { handles, type RegisteredJob } from '../job-registry';

export const loanHandlers: RegisteredJob[] = [
  handles(loanStreamOpenJob, (p, ctx) => openLoanStream({ db: ctx.db, redis: ctx.redis, prefix: ctx.config.REDIS_PREFIX, events: ctx.events }, p)),
];
