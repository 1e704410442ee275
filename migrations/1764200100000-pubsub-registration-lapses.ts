import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The quote sweeper forgets lapsed pubsub registrations (docs/SECURITY.md, "State an anonymous
 * caller can create": a wallet's free session registers freemium, and the Postgres copy of that
 * registration was kept for good once it lapsed, until a Redis data loss's rebuild). It deletes
 * by `lapses_at` every sweep: this index keeps that one short range scan.
 */
export class PubsubRegistrationLapses1764200100000 implements MigrationInterface {
  name = 'PubsubRegistrationLapses1764200100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX pubsub_registrations_lapses ON pubsub_registrations (lapses_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX pubsub_registrations_lapses`);
  }
}
