import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Standard RFQ quotes, their legs, maker offers, and idempotent create replies. */
export class Quotes1764000300000 implements MigrationInterface {
  name = 'Quotes1764000300000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE quotes (
        id                 uuid PRIMARY KEY,
        chain_id           integer NOT NULL REFERENCES networks(chain_id),
        state              text NOT NULL DEFAULT 'open' CHECK (state IN ('open','expired','filled','cancelled')),
        offer_format       text NOT NULL CHECK (offer_format IN ('package_only','dutch_only')),
        polarity           text NOT NULL CHECK (polarity IN ('b_is_buy','a_is_buy')),
        strategy           text NOT NULL,
        taker_address      text NOT NULL,
        referrer           text NOT NULL,
        taker_salt         text NOT NULL,
        taker_address_hash text NOT NULL,
        directions         smallint[] NOT NULL,
        pair_contract      text NOT NULL,
        expiry_timestamp   bigint NOT NULL,
        stream_token_hash  text NOT NULL UNIQUE,
        expires_at         timestamptz NOT NULL,
        created_at         timestamptz NOT NULL DEFAULT now(),
        announced_at       timestamptz,
        closed_at          timestamptz,
        fill_tx_hash       text
      )`);
    await q.query(`CREATE INDEX quotes_open_expiry ON quotes (expires_at) WHERE state = 'open'`);
    await q.query(`CREATE INDEX quotes_taker_hash ON quotes (chain_id, taker_address_hash)`);
    await q.query(`CREATE INDEX quotes_unannounced ON quotes (created_at) WHERE announced_at IS NULL`);
    await q.query(`
      CREATE TABLE quote_legs (
        quote_id                 uuid NOT NULL REFERENCES quotes(id) ON DELETE CASCADE,
        idx                      smallint NOT NULL,
        option_type              smallint NOT NULL CHECK (option_type IN (0,1)),
        structure                smallint NOT NULL CHECK (structure IN (0,1)),
        direction                smallint NOT NULL CHECK (direction IN (0,1)),
        strike_wad               numeric(78,0) NOT NULL,
        amount                   numeric(78,0) NOT NULL,
        start_exercise_timestamp bigint NOT NULL,
        expiry_timestamp         bigint NOT NULL,
        PRIMARY KEY (quote_id, idx)
      )`);
    await q.query(`
      CREATE TABLE quote_offers (
        id              uuid PRIMARY KEY,
        quote_id        uuid NOT NULL REFERENCES quotes(id) ON DELETE CASCADE,
        chain_id        integer NOT NULL,
        maker           text NOT NULL,
        offer_type      text NOT NULL CHECK (offer_type = 'package'),
        package_premium numeric(78,0) NOT NULL,
        maker_pays_taker boolean NOT NULL,
        premium_token   text NOT NULL,
        nonce           numeric(78,0) NOT NULL,
        deadline        bigint NOT NULL,
        signature       text NOT NULL,
        digest          text NOT NULL,
        created_at      timestamptz NOT NULL DEFAULT now(),
        announced_at    timestamptz
      )`);
    // A maker's nonce is single-use per chain: the same signed offer cannot be posted twice.
    await q.query(`CREATE UNIQUE INDEX quote_offers_maker_nonce ON quote_offers (chain_id, maker, nonce)`);
    await q.query(`CREATE INDEX quote_offers_quote ON quote_offers (quote_id)`);
    await q.query(`CREATE INDEX quote_offers_unannounced ON quote_offers (created_at) WHERE announced_at IS NULL`);
    await q.query(`
      CREATE TABLE idempotency_keys (
        scope        text NOT NULL,
        key          text NOT NULL,
        request_hash text NOT NULL,
        status       integer NOT NULL,
        response     jsonb NOT NULL,
        created_at   timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (scope, key)
      )`);
    await q.query(`CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE idempotency_keys`);
    await q.query(`DROP TABLE quote_offers`);
    await q.query(`DROP TABLE quote_legs`);
    await q.query(`DROP TABLE quotes`);
  }
}
