import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The hash of block 0 of the chain a network's cursor was indexed from (docs/INDEXER.md, "A new
 * chain under the same network"). A node that answers with another genesis is another chain (a
 * devchain started again, a testnet reset): the indexer starts the network over instead of
 * taking the difference for a reorg. Null until the indexer first reads it (cursors written before).
 */
export class IndexerGenesis1764202000000 implements MigrationInterface {
  name = 'IndexerGenesis1764202000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE indexer_cursors ADD COLUMN genesis_hash text`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE indexer_cursors DROP COLUMN genesis_hash`);
  }
}
