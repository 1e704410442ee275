export { IdempotencyService } from './idempotency.service';
export type { StoredResponse } from './idempotency.service';
