import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * When a closed quote's rfq_result was last published. A close commits before its publish, so a
 * worker killed in between, or a fill the indexer stores while Redis is down, leaves a closed
 * quote whose result nobody sent; the sweeper finds those through this column and sends them.
 */
export class QuoteResultPublished1764000900000 implements MigrationInterface {
  name = 'QuoteResultPublished1764000900000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE quotes ADD COLUMN result_published_at timestamptz`);
    // Quotes closed before this column existed had their result sent (or lost) long ago.
    await q.query(`UPDATE quotes SET result_published_at = closed_at WHERE state <> 'open'`);
    await q.query(
      `CREATE INDEX quotes_result_unpublished ON quotes (closed_at)
         WHERE state <> 'open' AND (result_published_at IS NULL OR result_published_at < closed_at)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX quotes_result_unpublished`);
    await q.query(`ALTER TABLE quotes DROP COLUMN result_published_at`);
  }
}
