import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The retention job looks for closed quotes by closing time, oldest first. */
export class QuoteRetentionIndex1764000600100 implements MigrationInterface {
  name = 'QuoteRetentionIndex1764000600100';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX quotes_closed_at ON quotes (closed_at) WHERE state <> 'open'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX quotes_closed_at`);
  }
}
