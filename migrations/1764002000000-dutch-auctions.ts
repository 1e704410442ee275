import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Dutch auctions (docs/DUTCH.md): a Dutch quote is a quote row with its phase, deadlines, the
 * taker-signed request and, after the competition, the award; makers' both-side bids have their
 * own table (one bid per maker and quote: a later bid replaces the earlier one).
 */
export class DutchAuctions1764002000000 implements MigrationInterface {
  name = 'DutchAuctions1764002000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE quotes
        ADD COLUMN dutch_phase          text CHECK (dutch_phase IN ('competing','exclusive','open')),
        ADD COLUMN dutch_request        jsonb,
        ADD COLUMN dutch_request_digest text,
        ADD COLUMN taker_signature      text,
        ADD COLUMN taker_nonce          numeric(78,0),
        ADD COLUMN compete_ends_at      timestamptz,
        ADD COLUMN exclusive_ms         integer,
        ADD COLUMN exclusive_ends_at    timestamptz,
        ADD COLUMN awarded_at           timestamptz,
        ADD COLUMN opened_at            timestamptz,
        ADD COLUMN award                jsonb,
        ADD COLUMN exclusive_salt       text,
        ADD COLUMN winner               text,
        ADD CONSTRAINT quotes_dutch_complete CHECK (
          (offer_format = 'dutch_only') = (dutch_phase IS NOT NULL AND dutch_request IS NOT NULL AND dutch_request_digest IS NOT NULL
                                           AND taker_signature IS NOT NULL AND taker_nonce IS NOT NULL AND compete_ends_at IS NOT NULL))`);
    // A taker's nonce signs one request: a second quote with it could never settle.
    await q.query(`CREATE UNIQUE INDEX quotes_dutch_taker_nonce ON quotes (chain_id, taker_address, taker_nonce) WHERE offer_format = 'dutch_only'`);
    // The indexer finds a Dutch quote by the digest its fill event carries.
    await q.query(`CREATE INDEX quotes_dutch_digest ON quotes (chain_id, dutch_request_digest) WHERE offer_format = 'dutch_only'`);
    // The sweeper's backstop: live Dutch quotes whose phase is overdue.
    await q.query(`CREATE INDEX quotes_dutch_live ON quotes (dutch_phase) WHERE state = 'open' AND offer_format = 'dutch_only'`);
    await q.query(`
      CREATE TABLE dutch_bids (
        id                uuid PRIMARY KEY,
        quote_id          uuid NOT NULL REFERENCES quotes(id) ON DELETE CASCADE,
        maker             text NOT NULL,
        buy_override_bps  integer NOT NULL CHECK (buy_override_bps BETWEEN 0 AND 10000),
        sell_override_bps integer NOT NULL CHECK (sell_override_bps BETWEEN 0 AND 10000),
        version           integer NOT NULL DEFAULT 1,
        bid_at            timestamptz NOT NULL DEFAULT clock_timestamp(),
        announced_version integer NOT NULL DEFAULT 0,
        UNIQUE (quote_id, maker)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE dutch_bids`);
    await q.query(`DROP INDEX quotes_dutch_live`);
    await q.query(`DROP INDEX quotes_dutch_digest`);
    await q.query(`DROP INDEX quotes_dutch_taker_nonce`);
    await q.query(`
      ALTER TABLE quotes
        DROP CONSTRAINT quotes_dutch_complete,
        DROP COLUMN dutch_phase, DROP COLUMN dutch_request, DROP COLUMN dutch_request_digest, DROP COLUMN taker_signature,
        DROP COLUMN taker_nonce, DROP COLUMN compete_ends_at, DROP COLUMN exclusive_ms, DROP COLUMN exclusive_ends_at,
        DROP COLUMN awarded_at, DROP COLUMN opened_at, DROP COLUMN award, DROP COLUMN exclusive_salt, DROP COLUMN winner`);
  }
}
