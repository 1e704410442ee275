import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A maker key may be created with the spec's body (no `address_signature`): it is then
 * unverified until its bot wallet proves itself (POST /api/maker/keys/:id/verify, or a SIWE
 * sign-in by that wallet). Keys that exist already were bound under the rules of their time and
 * keep working as before: they count as verified from their creation.
 */
export class MakerKeyVerification1764008200000 implements MigrationInterface {
  name = 'MakerKeyVerification1764008200000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE api_keys ADD COLUMN verified_at timestamptz`);
    await q.query(`UPDATE api_keys SET verified_at = created_at WHERE kind = 'maker'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE api_keys DROP COLUMN verified_at`);
  }
}
