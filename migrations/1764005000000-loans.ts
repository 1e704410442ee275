import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Loans indexed from the reference lending market and its price oracle (docs/LOANS.md):
 *
 * - `indexer_prices`: every `PriceUpdated`, as read; a token's price is its latest row.
 * - `indexer_loans`: one row per loan in its latest state, with the health factor the latest
 *   prices give it (recomputed in the indexer's transaction whenever a price or the loan moves),
 *   so the at-risk ranking is an index scan.
 * - `indexer_loan_events`: every loan event (opened, collateral in and out, repaid, liquidated),
 *   carrying the loan's parties and tokens so activity filters need no join (null only for an
 *   event of a loan whose opening was never indexed).
 *
 * Log rows are keyed like the other indexer tables and indexed by what the rollback deletes by.
 */
export class Loans1764005000000 implements MigrationInterface {
  name = 'Loans1764005000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE indexer_prices (
        chain_id        integer NOT NULL REFERENCES networks(chain_id) ON DELETE CASCADE,
        block_number    bigint NOT NULL,
        block_hash      text NOT NULL,
        block_timestamp bigint NOT NULL,
        log_index       integer NOT NULL,
        tx_hash         text NOT NULL,
        oracle          text NOT NULL,
        token           text NOT NULL,
        price_wad       numeric NOT NULL,
        decimals        smallint NOT NULL,
        PRIMARY KEY (chain_id, block_number, block_hash, log_index)
      )`);
    await q.query(`CREATE INDEX indexer_prices_token ON indexer_prices (chain_id, token, block_number DESC, log_index DESC)`);
    await q.query(`
      CREATE TABLE indexer_loans (
        chain_id              integer NOT NULL REFERENCES networks(chain_id) ON DELETE CASCADE,
        loan_id               numeric NOT NULL,
        market                text NOT NULL,
        borrower              text NOT NULL,
        lender                text NOT NULL,
        collateral_token      text NOT NULL,
        collateral_amount     numeric NOT NULL,
        debt_token            text NOT NULL,
        principal             numeric NOT NULL,
        principal_outstanding numeric NOT NULL,
        interest_paid         numeric NOT NULL DEFAULT 0,
        rate_bps              integer NOT NULL,
        threshold_bps         integer NOT NULL,
        maturity              bigint NOT NULL,
        state                 text NOT NULL CHECK (state IN ('active', 'repaid', 'liquidated')),
        health_wad            numeric,
        opened_block          bigint NOT NULL,
        opened_block_hash     text NOT NULL,
        opened_log_index      integer NOT NULL,
        opened_at             bigint NOT NULL,
        tx_hash               text NOT NULL,
        last_block            bigint NOT NULL,
        last_log_index        integer NOT NULL,
        closed_at             bigint,
        PRIMARY KEY (chain_id, loan_id, market)
      )`);
    await q.query(`CREATE INDEX indexer_loans_last_block ON indexer_loans (chain_id, last_block)`);
    await q.query(`CREATE INDEX indexer_loans_opened ON indexer_loans (chain_id, opened_block DESC, opened_log_index DESC)`);
    await q.query(`CREATE INDEX indexer_loans_health ON indexer_loans (chain_id, health_wad, loan_id) WHERE state = 'active'`);
    await q.query(`CREATE INDEX indexer_loans_borrower ON indexer_loans (chain_id, borrower, opened_block DESC)`);
    await q.query(`CREATE INDEX indexer_loans_lender ON indexer_loans (chain_id, lender, opened_block DESC)`);
    // Summaries and price-driven health updates read active loans by token; the INCLUDEs make the sums index-only.
    await q.query(
      `CREATE INDEX indexer_loans_debt_active ON indexer_loans (chain_id, debt_token) INCLUDE (principal_outstanding, rate_bps) WHERE state = 'active'`,
    );
    await q.query(
      `CREATE INDEX indexer_loans_collateral_active ON indexer_loans (chain_id, collateral_token) INCLUDE (collateral_amount) WHERE state = 'active'`,
    );
    await q.query(`
      CREATE TABLE indexer_loan_events (
        chain_id          integer NOT NULL REFERENCES networks(chain_id) ON DELETE CASCADE,
        block_number      bigint NOT NULL,
        block_hash        text NOT NULL,
        block_timestamp   bigint NOT NULL,
        log_index         integer NOT NULL,
        tx_hash           text NOT NULL,
        market            text NOT NULL,
        loan_id           numeric NOT NULL,
        kind              text NOT NULL CHECK (kind IN ('opened', 'collateral_added', 'collateral_withdrawn', 'repaid', 'liquidated')),
        actor             text NOT NULL,
        borrower          text,
        lender            text,
        collateral_token  text,
        debt_token        text,
        collateral_delta  numeric NOT NULL,
        collateral_after  numeric,
        principal_delta   numeric NOT NULL,
        principal_after   numeric,
        interest_paid     numeric NOT NULL,
        PRIMARY KEY (chain_id, block_number, block_hash, log_index)
      )`);
    await q.query(`CREATE INDEX indexer_loan_events_loan ON indexer_loan_events (chain_id, loan_id, block_number, log_index)`);
    await q.query(`CREATE INDEX indexer_loan_events_borrower ON indexer_loan_events (chain_id, borrower, block_number DESC, log_index DESC)`);
    await q.query(`CREATE INDEX indexer_loan_events_lender ON indexer_loan_events (chain_id, lender, block_number DESC, log_index DESC)`);
    await q.query(`CREATE INDEX indexer_loan_events_kind ON indexer_loan_events (chain_id, kind, block_number DESC, log_index DESC)`);
    await q.query(`CREATE INDEX indexer_loan_events_debt_token ON indexer_loan_events (chain_id, debt_token, block_number DESC, log_index DESC)`);
    await q.query(`CREATE INDEX indexer_loan_events_collateral_token ON indexer_loan_events (chain_id, collateral_token, block_number DESC, log_index DESC)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE indexer_loan_events`);
    await q.query(`DROP TABLE indexer_loans`);
    await q.query(`DROP TABLE indexer_prices`);
  }
}
