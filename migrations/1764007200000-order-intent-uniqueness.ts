import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Recording an order reserves nothing (docs/ORDERS.md, "Who may record an order"): anyone may
 * record an order for any `destination.from`, so the `(chain, pair, owner, prefix, nonce)` key
 * let a stranger squat a wallet's nonces for good. Orders are now unique by what they are, the
 * intent hash; several unplaced records may share a nonce, and the owner's on-chain placement
 * (`OrderIntentPlaced`) decides which one is real. `recorded_by_owner` says the order was
 * recorded with the owner's own credential (its SIWE session or its maker key): owner lists show
 * only those and placed orders.
 *
 * Down restores the nonce key. Rows that share a nonce cannot all stay under it: per nonce it
 * keeps the placed record, else one the owner recorded, else the oldest, and deletes the others
 * (records that bound nobody).
 */
export class OrderIntentUniqueness1764007200000 implements MigrationInterface {
  name = 'OrderIntentUniqueness1764007200000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE orders ADD COLUMN recorded_by_owner boolean NOT NULL DEFAULT false`);
    await q.query(`ALTER TABLE orders DROP CONSTRAINT orders_chain_id_pair_owner_address_nonce_prefix_nonce_key`);
    await q.query(`DROP INDEX orders_intent_hash`);
    // The old key made the intent hash unique already (the hash covers from, pair, prefix and nonce).
    await q.query(`CREATE UNIQUE INDEX orders_intent_hash_key ON orders (chain_id, intent_hash)`);
    await q.query(`CREATE INDEX orders_owner_nonce ON orders (chain_id, pair, owner_address, nonce_prefix, nonce)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DELETE FROM orders d USING (
        SELECT o.id, row_number() OVER (
                 PARTITION BY o.chain_id, o.pair, o.owner_address, o.nonce_prefix, o.nonce
                 ORDER BY (i.order_id IS NOT NULL) DESC, o.recorded_by_owner DESC, o.created_at, o.id) AS n
          FROM orders o
          LEFT JOIN indexer_order_intents i ON i.chain_id = o.chain_id AND i.intent_hash = o.intent_hash
      ) ranked
      WHERE d.id = ranked.id AND ranked.n > 1`);
    await q.query(`DROP INDEX orders_owner_nonce`);
    await q.query(`DROP INDEX orders_intent_hash_key`);
    await q.query(`CREATE INDEX orders_intent_hash ON orders (chain_id, intent_hash)`);
    await q.query(
      `ALTER TABLE orders ADD CONSTRAINT orders_chain_id_pair_owner_address_nonce_prefix_nonce_key UNIQUE (chain_id, pair, owner_address, nonce_prefix, nonce)`,
    );
    await q.query(`ALTER TABLE orders DROP COLUMN recorded_by_owner`);
  }
}
