import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Dutch awards and openings are made in batches (docs/DUTCH.md): one run awards every
 * competition due at once and publishes them all. `dutch_published_phase` records the last
 * phase whose payloads went out, so the other jobs of a batch's quotes see their work done in
 * one read instead of publishing it again, and the sweeper finds a batch whose publish died.
 * The partial index serves the batch's "competitions due now" and "windows over now" scans.
 */
export class DutchPublishedPhase1764006200000 implements MigrationInterface {
  name = 'DutchPublishedPhase1764006200000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE quotes ADD COLUMN dutch_published_phase text CHECK (dutch_published_phase IN ('exclusive','open'))`);
    await q.query(`CREATE INDEX quotes_dutch_competing_due ON quotes (compete_ends_at) WHERE state = 'open' AND dutch_phase = 'competing'`);
    await q.query(`CREATE INDEX quotes_dutch_exclusive_due ON quotes (exclusive_ends_at) WHERE state = 'open' AND dutch_phase = 'exclusive'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX quotes_dutch_exclusive_due`);
    await q.query(`DROP INDEX quotes_dutch_competing_due`);
    await q.query(`ALTER TABLE quotes DROP COLUMN dutch_published_phase`);
  }
}
