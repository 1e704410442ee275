import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Tables the chain indexer writes (it is their only writer) and the API reads: cursors, the
 * unfinalized block window, status heartbeats, discovered pairs, raw events (every log read
 * except ERC-6909 transfers), transfers, balances, book orders, and mothership settlements.
 *
 * Every row derived from a log has the primary key (chain_id, block_number, block_hash, log_index):
 * the block hash fixes the block number, so this is unique exactly when (chain_id, block_hash,
 * log_index) is, and the same log can never be stored twice. Leading with the block number makes
 * inserts append to the index (a backfill writes in block order) and lets a reorg delete by height
 * through the same index, so no second index on the block number is needed.
 */
export class Indexer1764000400000 implements MigrationInterface {
  name = 'Indexer1764000400000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE indexer_cursors (
        chain_id        integer NOT NULL REFERENCES networks(chain_id) ON DELETE CASCADE,
        contract_set    text NOT NULL,
        block_number    bigint NOT NULL CHECK (block_number >= -1),
        block_hash      text,
        block_timestamp bigint,
        updated_at      timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (chain_id, contract_set)
      )`);
    await q.query(`
      CREATE TABLE indexer_blocks (
        chain_id    integer NOT NULL REFERENCES networks(chain_id) ON DELETE CASCADE,
        number      bigint NOT NULL,
        hash        text NOT NULL,
        parent_hash text NOT NULL,
        timestamp   bigint NOT NULL,
        PRIMARY KEY (chain_id, number),
        UNIQUE (chain_id, hash)
      )`);
    await q.query(`
      CREATE TABLE indexer_status (
        chain_id         integer PRIMARY KEY REFERENCES networks(chain_id) ON DELETE CASCADE,
        state            text NOT NULL CHECK (state IN ('starting','backfill','realtime','stopped')),
        head             bigint,
        head_timestamp   bigint,
        cursor           bigint,
        cursor_timestamp bigint,
        rpc_ok           boolean NOT NULL DEFAULT false,
        last_error       text,
        last_synced_at   timestamptz,
        heartbeat_at     timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE indexer_pairs (
        chain_id           integer NOT NULL REFERENCES networks(chain_id) ON DELETE CASCADE,
        address            text NOT NULL,
        factory            text NOT NULL,
        token0             text NOT NULL,
        token1             text NOT NULL,
        premium_token      text NOT NULL,
        created_block      bigint NOT NULL,
        created_block_hash text NOT NULL,
        created_log_index  integer NOT NULL,
        tx_hash            text NOT NULL,
        PRIMARY KEY (chain_id, address)
      )`);
    await q.query(`CREATE INDEX indexer_pairs_block ON indexer_pairs (chain_id, created_block)`);
    await q.query(`
      CREATE TABLE indexer_events (
        chain_id        integer NOT NULL REFERENCES networks(chain_id) ON DELETE CASCADE,
        block_number    bigint NOT NULL,
        block_hash      text NOT NULL,
        block_timestamp bigint NOT NULL,
        log_index       integer NOT NULL,
        tx_hash         text NOT NULL,
        address         text NOT NULL,
        event_name      text NOT NULL,
        args            jsonb NOT NULL,
        PRIMARY KEY (chain_id, block_number, block_hash, log_index)
      )`);
    await q.query(`CREATE INDEX indexer_events_address ON indexer_events (chain_id, address, block_number DESC, log_index DESC)`);
    await q.query(`
      CREATE TABLE indexer_transfers (
        chain_id        integer NOT NULL REFERENCES networks(chain_id) ON DELETE CASCADE,
        block_number    bigint NOT NULL,
        block_hash      text NOT NULL,
        block_timestamp bigint NOT NULL,
        log_index       integer NOT NULL,
        tx_hash         text NOT NULL,
        pair            text NOT NULL,
        caller          text NOT NULL,
        sender          text NOT NULL,
        receiver        text NOT NULL,
        option_id       numeric(78,0) NOT NULL,
        amount          numeric(78,0) NOT NULL,
        PRIMARY KEY (chain_id, block_number, block_hash, log_index)
      )`);
    await q.query(`CREATE INDEX indexer_transfers_pair ON indexer_transfers (chain_id, pair, block_number DESC, log_index DESC)`);
    await q.query(`
      CREATE TABLE indexer_balances (
        chain_id      integer NOT NULL REFERENCES networks(chain_id) ON DELETE CASCADE,
        holder        text NOT NULL,
        pair          text NOT NULL,
        option_id     numeric(78,0) NOT NULL,
        balance       numeric(78,0) NOT NULL,
        first_block   bigint NOT NULL,
        updated_block bigint NOT NULL,
        PRIMARY KEY (chain_id, holder, pair, option_id)
      )`);
    await q.query(`
      CREATE TABLE indexer_orders (
        chain_id          integer NOT NULL REFERENCES networks(chain_id) ON DELETE CASCADE,
        pair              text NOT NULL,
        order_id          numeric(78,0) NOT NULL,
        owner             text NOT NULL,
        option_id         numeric(78,0) NOT NULL,
        is_buy            boolean NOT NULL,
        price             numeric(78,0) NOT NULL,
        amount            numeric(78,0) NOT NULL,
        remaining         numeric(78,0) NOT NULL,
        state             text NOT NULL CHECK (state IN ('open','filled','cancelled')),
        placed_block      bigint NOT NULL,
        placed_block_hash text NOT NULL,
        placed_log_index  integer NOT NULL,
        tx_hash           text NOT NULL,
        last_block        bigint NOT NULL,
        last_log_index    integer NOT NULL,
        PRIMARY KEY (chain_id, pair, order_id)
      )`);
    await q.query(`CREATE INDEX indexer_orders_owner_open ON indexer_orders (chain_id, owner) WHERE state = 'open'`);
    await q.query(`CREATE INDEX indexer_orders_last_block ON indexer_orders (chain_id, last_block)`);
    await q.query(`
      CREATE TABLE indexer_settlements (
        chain_id           integer NOT NULL REFERENCES networks(chain_id) ON DELETE CASCADE,
        block_number       bigint NOT NULL,
        block_hash         text NOT NULL,
        block_timestamp    bigint NOT NULL,
        log_index          integer NOT NULL,
        tx_hash            text NOT NULL,
        mothership         text NOT NULL,
        taker_address_hash text NOT NULL,
        maker              text NOT NULL,
        taker              text NOT NULL,
        offer_digest       text NOT NULL,
        premium_token      text NOT NULL,
        package_premium    numeric(78,0) NOT NULL,
        maker_pays_taker   boolean NOT NULL,
        nonce              numeric(78,0) NOT NULL,
        referrer           text NOT NULL,
        directions         smallint[] NOT NULL,
        quote_id           uuid,
        PRIMARY KEY (chain_id, block_number, block_hash, log_index)
      )`);
    await q.query(`CREATE INDEX indexer_settlements_taker_hash ON indexer_settlements (taker_address_hash)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE indexer_settlements`);
    await q.query(`DROP TABLE indexer_orders`);
    await q.query(`DROP TABLE indexer_balances`);
    await q.query(`DROP TABLE indexer_transfers`);
    await q.query(`DROP TABLE indexer_events`);
    await q.query(`DROP TABLE indexer_pairs`);
    await q.query(`DROP TABLE indexer_status`);
    await q.query(`DROP TABLE indexer_blocks`);
    await q.query(`DROP TABLE indexer_cursors`);
  }
}
