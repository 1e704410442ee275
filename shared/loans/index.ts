export { LoanService, type Page } from './loan.service';
export { LoanRepository } from './loan.repository';
export { ExploreLoanWatchers } from './loan-watchers';
export * from './loan.schemas';
export { LOAN_AT_RISK_HEALTH_WAD, healthWad, formatWad, parseWad } from './health';
export { loanStreamOpenJob, LOANS_QUEUE } from './loan.jobs';
export { openLoanStream } from './loan-stream';
