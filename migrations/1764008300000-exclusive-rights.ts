import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Exclusive rights that cannot be hoarded (docs/SECURITY.md, finding 8): an exclusive fill
 * records the maker organization it was taken for, so an unused one counts as that
 * organization's fade, reserves its bond while live, and blocks its retake; an owner's cancel
 * of an order held by a live fill is recorded at once and applied when the fill ends.
 */
export class ExclusiveRights1764008300000 implements MigrationInterface {
  name = 'ExclusiveRights1764008300000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE exclusive_fills ADD COLUMN organization_id uuid`);
    await q.query(`CREATE INDEX exclusive_fills_organization ON exclusive_fills (organization_id, expire_time) WHERE organization_id IS NOT NULL`);
    await q.query(`ALTER TABLE orders ADD COLUMN cancel_requested_at timestamptz`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE orders DROP COLUMN cancel_requested_at`);
    await q.query(`DROP INDEX exclusive_fills_organization`);
    await q.query(`ALTER TABLE exclusive_fills DROP COLUMN organization_id`);
  }
}
