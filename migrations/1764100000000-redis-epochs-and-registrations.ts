import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What must outlive Redis (docs/FAULTS.md, "Redis data loss"):
 *
 * - `redis_epochs`: one row per life of the service's Redis data. A process that finds the Redis
 *   epoch key missing (a flush, a restart without persistence, an eviction) or replaced opens a
 *   new epoch here; its number sets the floor of every socket topic's seq counter in Redis, so a
 *   counter recreated after the loss never hands out a seq a client already holds.
 * - `pubsub_registrations`: the makers' POST /api/pubsub/{premium,freemium} registrations, which
 *   lived in Redis alone. Redis keeps serving them (every join and every announcement reads
 *   them); this is the copy they are rebuilt from after a loss.
 * - `admin_statement_uses`: the replay markers of signed admin statements (a statement is
 *   accepted once). In Redis, a flush inside a statement's 20-minute window made a captured
 *   statement usable again; here a use is remembered for as long as the statement could be valid.
 */
export class RedisEpochsAndRegistrations1764100000000 implements MigrationInterface {
  name = 'RedisEpochsAndRegistrations1764100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE redis_epochs (
        epoch      bigserial PRIMARY KEY,
        reason     text NOT NULL,
        opened_by  text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE pubsub_registrations (
        chain_id   integer NOT NULL,
        tier       text NOT NULL CHECK (tier IN ('premium', 'freemium')),
        address    text NOT NULL,
        key_id     text,
        lapses_at  timestamptz NOT NULL,
        PRIMARY KEY (chain_id, tier, address)
      )`);
    await q.query(`CREATE INDEX pubsub_registrations_key_id ON pubsub_registrations (key_id) WHERE key_id IS NOT NULL`);
    await q.query(`
      CREATE TABLE admin_statement_uses (
        statement_hash text PRIMARY KEY,
        used_at        timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX admin_statement_uses_used_at ON admin_statement_uses (used_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE admin_statement_uses`);
    await q.query(`DROP TABLE pubsub_registrations`);
    await q.query(`DROP TABLE redis_epochs`);
  }
}
