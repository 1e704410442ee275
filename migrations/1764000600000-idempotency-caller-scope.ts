import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Idempotency records scoped to their caller. Rows are found by a lookup value derived from the
 * Idempotency-Key and the caller, and keep the first response encrypted under a key derived
 * from both (see docs/QUOTES.md), instead of the raw key, a plain body hash and the response
 * with its stream token and salt in clear. Existing rows hold those secrets in clear and cannot
 * be converted (the callers are unknown): they are deleted, which only means a retry of a
 * request made before the upgrade creates a new quote.
 */
export class IdempotencyCallerScope1764000600000 implements MigrationInterface {
  name = 'IdempotencyCallerScope1764000600000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`DELETE FROM idempotency_keys`);
    await q.query(`ALTER TABLE idempotency_keys RENAME COLUMN key TO lookup_hash`);
    await q.query(`ALTER TABLE idempotency_keys RENAME COLUMN request_hash TO request_mac`);
    await q.query(`ALTER TABLE idempotency_keys DROP COLUMN response`);
    await q.query(`ALTER TABLE idempotency_keys ADD COLUMN sealed_response text NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    // Sealed responses cannot be turned back into clear ones without their callers' keys.
    await q.query(`DELETE FROM idempotency_keys`);
    await q.query(`ALTER TABLE idempotency_keys DROP COLUMN sealed_response`);
    await q.query(`ALTER TABLE idempotency_keys ADD COLUMN response jsonb NOT NULL`);
    await q.query(`ALTER TABLE idempotency_keys RENAME COLUMN request_mac TO request_hash`);
    await q.query(`ALTER TABLE idempotency_keys RENAME COLUMN lookup_hash TO key`);
  }
}
