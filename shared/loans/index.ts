export { LoanService } from './loan.service';
export { LoanRepository } from './loan.repository';
export { loanFeed, LOAN_FEED_SUBJECT } from './loan-feed';
export * from './loan.schemas';
export { LOAN_AT_RISK_HEALTH_WAD, healthWad, formatWad, parseWad } from './health';
export { isoFromUnix, loanEventView, loanPublicId } from './loan.views';
