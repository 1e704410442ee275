export { IdempotencyService, requestHash } from './idempotency.service';
export type { StoredResponse } from './idempotency.service';
