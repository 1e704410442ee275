import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * No free state (docs/SECURITY.md, finding 10; docs/ORDERS.md, "Records nobody confirmed"):
 * anyone may record an order for any wallet without a credential, so records that nobody
 * confirmed are bounded in number and in lifetime, and no record holds a BullMQ job.
 *
 * - `recorder_ip`: the sha-256 of the client IP bucket (an IPv4 address or an IPv6 /64) that
 *   recorded an unconfirmed record; null for a record the owner made with its own credential.
 *   The per-IP cap (`ORDER_UNCONFIRMED_PER_IP`) counts by it.
 * - `retained`: the records sweeper found the record placed on chain; no retention rule deletes
 *   it, and the sweeper's scans (partial indexes below) no longer pass over it.
 *
 * The partial indexes serve the caps (newest first per owner and per IP, among records neither
 * recorded by the owner nor seen placed) and the sweeper's retention scans. Down drops them.
 */
export class OrderRecordsBounded1764200000000 implements MigrationInterface {
  name = 'OrderRecordsBounded1764200000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE orders ADD COLUMN recorder_ip text`);
    await q.query(`ALTER TABLE orders ADD COLUMN retained boolean NOT NULL DEFAULT false`);
    await q.query(`CREATE INDEX orders_unconfirmed_owner ON orders (owner_address, created_at DESC, id DESC) WHERE NOT recorded_by_owner AND NOT retained`);
    await q.query(
      `CREATE INDEX orders_unconfirmed_ip ON orders (recorder_ip, created_at DESC, id DESC)
        WHERE recorder_ip IS NOT NULL AND NOT recorded_by_owner AND NOT retained`,
    );
    await q.query(`CREATE INDEX orders_unconfirmed_created ON orders (created_at) WHERE NOT recorded_by_owner AND NOT retained`);
    await q.query(`CREATE INDEX orders_own_closed ON orders (closed_at) WHERE recorded_by_owner AND NOT retained AND state IN ('expired', 'cancelled')`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX orders_own_closed`);
    await q.query(`DROP INDEX orders_unconfirmed_created`);
    await q.query(`DROP INDEX orders_unconfirmed_ip`);
    await q.query(`DROP INDEX orders_unconfirmed_owner`);
    await q.query(`ALTER TABLE orders DROP COLUMN retained`);
    await q.query(`ALTER TABLE orders DROP COLUMN recorder_ip`);
  }
}
