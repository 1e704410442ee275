import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Networks, tokens and operator settings: the public registry. */
export class Registry1764000000000 implements MigrationInterface {
  name = 'Registry1764000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE networks (
        chain_id      integer PRIMARY KEY CHECK (chain_id > 0),
        name          text NOT NULL,
        rpc_urls      jsonb NOT NULL DEFAULT '[]'::jsonb,
        contracts     jsonb NOT NULL DEFAULT '{}'::jsonb,
        enabled       boolean NOT NULL DEFAULT true,
        confirmations integer NOT NULL DEFAULT 12 CHECK (confirmations >= 0),
        created_at    timestamptz NOT NULL DEFAULT now(),
        updated_at    timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE tokens (
        id                 serial PRIMARY KEY,
        chain_id           integer NOT NULL REFERENCES networks(chain_id) ON DELETE CASCADE,
        address            text NOT NULL,
        symbol             text NOT NULL,
        name               text NOT NULL,
        decimals           integer NOT NULL CHECK (decimals BETWEEN 0 AND 255),
        is_payment         boolean NOT NULL DEFAULT false,
        is_default_premium boolean NOT NULL DEFAULT false,
        is_faucet          boolean NOT NULL DEFAULT false,
        min_notional       numeric(78,0) CHECK (min_notional >= 0)
      )`);
    await q.query(`CREATE UNIQUE INDEX tokens_chain_address ON tokens (chain_id, address)`);
    await q.query(`
      CREATE TABLE settings (
        key        text PRIMARY KEY,
        value      jsonb NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE settings`);
    await q.query(`DROP TABLE tokens`);
    await q.query(`DROP TABLE networks`);
  }
}
