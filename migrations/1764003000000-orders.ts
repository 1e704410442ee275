import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * CLOB orders recorded by the API, exclusive fills issued over them, and what the indexer
 * derives for them: intents placed on chain, exclusive fills used, and maker bonds. The order
 * an exclusive fill holds is `orders.exclusive_fill_id`: one column, so no order is ever under
 * two fills, and claiming it is a row lock in Postgres (API replicas keep no state).
 */
export class Orders1764003000000 implements MigrationInterface {
  name = 'Orders1764003000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE orders (
        id                  uuid PRIMARY KEY,
        chain_id            integer NOT NULL REFERENCES networks(chain_id),
        owner_address       text NOT NULL,
        pair                text NOT NULL,
        premium_token       text NOT NULL,
        nonce_prefix        numeric(20,0) NOT NULL,
        nonce               numeric(78,0) NOT NULL,
        amount              numeric(78,0) NOT NULL,
        intent_hash         text NOT NULL,
        destination         jsonb NOT NULL,
        data                jsonb NOT NULL,
        state               text NOT NULL DEFAULT 'open' CHECK (state IN ('open','filled','cancelled','expired')),
        expires_at          timestamptz NOT NULL,
        exclusive_fill_id   uuid,
        created_at          timestamptz NOT NULL DEFAULT now(),
        closed_at           timestamptz,
        closed_block        bigint,
        fill_tx_hash        text,
        UNIQUE (chain_id, pair, owner_address, nonce_prefix, nonce)
      )`);
    await q.query(`CREATE INDEX orders_intent_hash ON orders (chain_id, intent_hash)`);
    await q.query(`CREATE INDEX orders_owner_created ON orders (owner_address, created_at DESC, id DESC)`);
    await q.query(`CREATE INDEX orders_created ON orders (created_at DESC, id DESC)`);
    await q.query(`CREATE INDEX orders_open_expiry ON orders (expires_at) WHERE state = 'open'`);
    await q.query(`CREATE INDEX orders_closed_block ON orders (chain_id, closed_block) WHERE closed_block IS NOT NULL`);
    await q.query(`
      CREATE TABLE exclusive_fills (
        id                  uuid PRIMARY KEY,
        id_hash             text NOT NULL UNIQUE,
        chain_id            integer NOT NULL REFERENCES networks(chain_id),
        pair                text NOT NULL,
        maker               text NOT NULL,
        reward_destination  text NOT NULL,
        order_ids           uuid[] NOT NULL,
        intent_data_hash    text NOT NULL,
        signature           text NOT NULL,
        state               text NOT NULL DEFAULT 'active' CHECK (state IN ('active','used','expired')),
        expire_time         timestamptz NOT NULL,
        created_at          timestamptz NOT NULL DEFAULT now(),
        closed_at           timestamptz,
        used_block          bigint,
        used_tx_hash        text,
        -- The state (and closed_at) the maker last heard on rfq_maker: an outbox the sweeper drains.
        published_state     text
      )`);
    await q.query(`CREATE INDEX exclusive_fills_active_expiry ON exclusive_fills (expire_time) WHERE state = 'active'`);
    await q.query(`CREATE INDEX exclusive_fills_unpublished ON exclusive_fills (created_at) WHERE published_state IS DISTINCT FROM state`);
    await q.query(`CREATE INDEX exclusive_fills_used_block ON exclusive_fills (chain_id, used_block) WHERE used_block IS NOT NULL`);
    await q.query(`
      CREATE TABLE indexer_order_intents (
        chain_id        integer NOT NULL REFERENCES networks(chain_id) ON DELETE CASCADE,
        block_number    bigint NOT NULL,
        block_hash      text NOT NULL,
        block_timestamp bigint NOT NULL,
        log_index       integer NOT NULL,
        tx_hash         text NOT NULL,
        pair            text NOT NULL,
        order_id        numeric(78,0) NOT NULL,
        intent_hash     text NOT NULL,
        owner           text NOT NULL,
        nonce_prefix    numeric(20,0) NOT NULL,
        nonce           numeric(78,0) NOT NULL,
        PRIMARY KEY (chain_id, pair, order_id)
      )`);
    await q.query(`CREATE INDEX indexer_order_intents_hash ON indexer_order_intents (chain_id, intent_hash)`);
    await q.query(`CREATE INDEX indexer_order_intents_block ON indexer_order_intents (chain_id, block_number)`);
    await q.query(`
      CREATE TABLE indexer_exclusive_fill_uses (
        chain_id           integer NOT NULL REFERENCES networks(chain_id) ON DELETE CASCADE,
        block_number       bigint NOT NULL,
        block_hash         text NOT NULL,
        block_timestamp    bigint NOT NULL,
        log_index          integer NOT NULL,
        tx_hash            text NOT NULL,
        pair               text NOT NULL,
        exclusive_fill_id_hash text NOT NULL,
        maker              text NOT NULL,
        reward_destination text NOT NULL,
        intent_data_hash   text NOT NULL,
        reward_per_unit    numeric(78,0) NOT NULL,
        total_reward       numeric(78,0) NOT NULL,
        PRIMARY KEY (chain_id, block_number, log_index)
      )`);
    await q.query(`CREATE INDEX indexer_exclusive_fill_uses_id ON indexer_exclusive_fill_uses (exclusive_fill_id_hash)`);
    await q.query(`
      CREATE TABLE indexer_bond_events (
        chain_id        integer NOT NULL REFERENCES networks(chain_id) ON DELETE CASCADE,
        block_number    bigint NOT NULL,
        block_hash      text NOT NULL,
        block_timestamp bigint NOT NULL,
        log_index       integer NOT NULL,
        tx_hash         text NOT NULL,
        vault           text NOT NULL,
        maker           text NOT NULL,
        token           text NOT NULL,
        kind            text NOT NULL CHECK (kind IN ('deposit','withdraw')),
        amount          numeric(78,0) NOT NULL,
        balance         numeric(78,0) NOT NULL,
        PRIMARY KEY (chain_id, block_number, log_index)
      )`);
    // The latest event of a (maker, token) carries its balance: this index finds it in one step.
    await q.query(`CREATE INDEX indexer_bond_events_latest ON indexer_bond_events (chain_id, maker, token, block_number DESC, log_index DESC)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE indexer_bond_events`);
    await q.query(`DROP TABLE indexer_exclusive_fill_uses`);
    await q.query(`DROP TABLE indexer_order_intents`);
    await q.query(`DROP TABLE exclusive_fills`);
    await q.query(`DROP TABLE orders`);
  }
}
