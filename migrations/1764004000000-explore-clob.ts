import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Read models of Explore for CLOBs, written by the indexer with the rest of a batch and rolled
 * back with it (indexer/store/derived-tables.ts):
 *
 * - `indexer_clob_activity`: one row per order placed, filled or cancelled and per ERC-6909
 *   transfer of a pair, with the order's series and side resolved at write time, so activity and
 *   fills pages are one keyset scan of one index, newest first, with or without a filter.
 * - `indexer_clob_series`: every series (option id) a pair has listed or minted, with its open
 *   interest (minted minus burned) and its counts of orders placed and transfers, so an overview
 *   never scans orders or balances.
 * - `indexer_clob_daily` / `indexer_clob_traders`: fills, volume and premium volume per UTC day
 *   and series, and who traded on which day, so a summary over a window reads one row per day
 *   (and per trader-day) instead of every fill.
 *
 * Plus indexes on the order book: open orders by series, side and price, for book levels.
 */
export class ExploreClob1764004000000 implements MigrationInterface {
  name = 'ExploreClob1764004000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE indexer_clob_activity (
        chain_id        integer NOT NULL REFERENCES networks(chain_id) ON DELETE CASCADE,
        block_number    bigint NOT NULL,
        block_hash      text NOT NULL,
        block_timestamp bigint NOT NULL,
        log_index       integer NOT NULL,
        tx_hash         text NOT NULL,
        pair            text NOT NULL,
        kind            text NOT NULL CHECK (kind IN ('placed','filled','cancelled','transfer')),
        option_id       numeric(78,0),
        order_id        numeric(78,0),
        is_buy          boolean,
        price           numeric(78,0),
        amount          numeric(78,0) NOT NULL,
        remaining       numeric(78,0),
        account         text NOT NULL,
        counterparty    text,
        PRIMARY KEY (chain_id, block_number, block_hash, log_index)
      )`);
    await q.query(`CREATE INDEX indexer_clob_activity_pair ON indexer_clob_activity (chain_id, pair, block_number DESC, log_index DESC)`);
    await q.query(`CREATE INDEX indexer_clob_activity_kind ON indexer_clob_activity (chain_id, pair, kind, block_number DESC, log_index DESC)`);
    await q.query(`CREATE INDEX indexer_clob_activity_series ON indexer_clob_activity (chain_id, pair, option_id, block_number DESC, log_index DESC)`);
    await q.query(`CREATE INDEX indexer_clob_activity_account ON indexer_clob_activity (chain_id, pair, account, block_number DESC, log_index DESC)`);
    await q.query(
      `CREATE INDEX indexer_clob_activity_counterparty ON indexer_clob_activity (chain_id, pair, counterparty, block_number DESC, log_index DESC) WHERE counterparty IS NOT NULL`,
    );
    await q.query(`
      CREATE TABLE indexer_clob_series (
        chain_id      integer NOT NULL REFERENCES networks(chain_id) ON DELETE CASCADE,
        pair          text NOT NULL,
        option_id     numeric(78,0) NOT NULL,
        open_interest numeric(78,0) NOT NULL DEFAULT 0,
        orders_placed integer NOT NULL DEFAULT 0,
        transfers     integer NOT NULL DEFAULT 0,
        first_block   bigint NOT NULL,
        PRIMARY KEY (chain_id, pair, option_id)
      )`);
    await q.query(`CREATE INDEX indexer_clob_series_block ON indexer_clob_series (chain_id, first_block)`);
    await q.query(`
      CREATE TABLE indexer_clob_daily (
        chain_id       integer NOT NULL REFERENCES networks(chain_id) ON DELETE CASCADE,
        pair           text NOT NULL,
        day            date NOT NULL,
        option_id      numeric(78,0) NOT NULL,
        fills          integer NOT NULL,
        volume         numeric(78,0) NOT NULL,
        premium_volume numeric(78,0) NOT NULL,
        PRIMARY KEY (chain_id, pair, day, option_id)
      )`);
    await q.query(`
      CREATE TABLE indexer_clob_traders (
        chain_id integer NOT NULL REFERENCES networks(chain_id) ON DELETE CASCADE,
        pair     text NOT NULL,
        day      date NOT NULL,
        trader   text NOT NULL,
        fills    integer NOT NULL,
        PRIMARY KEY (chain_id, pair, day, trader)
      )`);
    await q.query(`CREATE INDEX indexer_orders_book ON indexer_orders (chain_id, pair, option_id, is_buy, price) INCLUDE (remaining) WHERE state = 'open'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX indexer_orders_book`);
    await q.query(`DROP TABLE indexer_clob_traders`);
    await q.query(`DROP TABLE indexer_clob_daily`);
    await q.query(`DROP TABLE indexer_clob_series`);
    await q.query(`DROP TABLE indexer_clob_activity`);
  }
}
