import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A bot wallet backs at most one active maker key. Before this, any admin could bind any address,
 * so two active keys on one address mean one binding was made without the wallet's consent:
 * the oldest key (the first binding) is kept and the later ones are revoked so the index can
 * be built. `down` drops the index only; revoked keys stay revoked.
 */
export class MakerKeyOnePerAddress1764000500000 implements MigrationInterface {
  name = 'MakerKeyOnePerAddress1764000500000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      UPDATE api_keys SET revoked_at = now()
       WHERE id IN (
         SELECT id FROM (
           SELECT id, row_number() OVER (PARTITION BY lower(address) ORDER BY created_at, id) AS n
             FROM api_keys
            WHERE address IS NOT NULL AND revoked_at IS NULL
         ) ranked
          WHERE n > 1
       )`);
    await q.query(`CREATE UNIQUE INDEX api_keys_one_active_per_address ON api_keys (lower(address)) WHERE address IS NOT NULL AND revoked_at IS NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX api_keys_one_active_per_address`);
  }
}
