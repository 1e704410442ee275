import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What the indexer's providers do wrong and what its standing audit found (docs/INDEXER.md,
 * "Providers"): each network's status row carries the RPC URLs' state and the last minute's
 * failures by class (`provider`), and the audit's progress and last difference (`audit`).
 */
export class IndexerProviderAudit1764007800000 implements MigrationInterface {
  name = 'IndexerProviderAudit1764007800000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE indexer_status ADD COLUMN provider jsonb, ADD COLUMN audit jsonb`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE indexer_status DROP COLUMN provider, DROP COLUMN audit`);
  }
}
