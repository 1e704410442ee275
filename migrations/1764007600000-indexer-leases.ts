import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Several indexer processes may run; each network is written by the one that holds its lease
 * (docs/INDEXER.md, "Several indexer processes"). One row per network: who holds it, the fencing
 * `token` (raised on every change of holder, never reused), and when the lease runs out by the
 * database clock. A row rather than an advisory lock: it survives a pooler in transaction mode,
 * and a write can check it inside its own transaction.
 */
export class IndexerLeases1764007600000 implements MigrationInterface {
  name = 'IndexerLeases1764007600000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE indexer_leases (
        chain_id    integer PRIMARY KEY REFERENCES networks(chain_id) ON DELETE CASCADE,
        holder      text NOT NULL,
        token       bigint NOT NULL CHECK (token > 0),
        acquired_at timestamptz NOT NULL DEFAULT now(),
        renewed_at  timestamptz NOT NULL DEFAULT now(),
        expires_at  timestamptz NOT NULL
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE indexer_leases`);
  }
}
