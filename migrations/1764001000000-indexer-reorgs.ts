import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What the indexer needs to survive reorgs of any depth, and to be steered by an operator:
 *
 * - `indexer_checkpoints`: hashes of blocks older than the dense window (ends of backfill ranges,
 *   blocks that held logs, blocks that left the window), kept down to the hard reorg limit. A
 *   reorg deeper than the window is resolved by comparing them with the node's, newest first.
 * - `indexer_cursors.start_block`: where the network's indexing began; the last resort of an
 *   ancestor search, and the block an operator re-indexes from.
 * - `indexer_status.error_code` / `action`: a fixed code for the last failure (the API shows fixed
 *   words for it, never the raw text) and, when the tailer halted, the command that resumes it.
 * - `indexer_reorg_stats`: reorgs seen per network (count, deepest, last), written in the
 *   rollback's own transaction.
 * - `indexer_resync_requests`: `ops indexer:resync` asks, the network's tailer performs the
 *   rollback between two of its steps and records the outcome.
 */
export class IndexerReorgs1764001000000 implements MigrationInterface {
  name = 'IndexerReorgs1764001000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE indexer_checkpoints (
        chain_id integer NOT NULL REFERENCES networks(chain_id) ON DELETE CASCADE,
        number   bigint NOT NULL CHECK (number >= 0),
        hash     text NOT NULL,
        PRIMARY KEY (chain_id, number)
      )`);
    await q.query(`ALTER TABLE indexer_cursors ADD COLUMN start_block bigint`);
    await q.query(`ALTER TABLE indexer_status ADD COLUMN error_code text, ADD COLUMN action text`);
    await q.query(`
      CREATE TABLE indexer_reorg_stats (
        chain_id            integer PRIMARY KEY REFERENCES networks(chain_id) ON DELETE CASCADE,
        reorgs              integer NOT NULL DEFAULT 0,
        deepest             integer NOT NULL DEFAULT 0,
        last_depth          integer,
        last_ancestor_block bigint,
        last_ancestor_hash  text,
        last_orphaned_tip   bigint,
        last_at             timestamptz
      )`);
    await q.query(`
      CREATE TABLE indexer_resync_requests (
        id              bigserial PRIMARY KEY,
        chain_id        integer NOT NULL REFERENCES networks(chain_id) ON DELETE CASCADE,
        from_block      bigint NOT NULL CHECK (from_block >= 0),
        state           text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'done')),
        requested_at    timestamptz NOT NULL DEFAULT now(),
        done_at         timestamptz,
        rolled_back_to  bigint,
        reopened_quotes integer,
        outcome         text
      )`);
    await q.query(`CREATE INDEX indexer_resync_requests_pending ON indexer_resync_requests (chain_id, id) WHERE state = 'pending'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE indexer_resync_requests`);
    await q.query(`DROP TABLE indexer_reorg_stats`);
    await q.query(`ALTER TABLE indexer_status DROP COLUMN action, DROP COLUMN error_code`);
    await q.query(`ALTER TABLE indexer_cursors DROP COLUMN start_block`);
    await q.query(`DROP TABLE indexer_checkpoints`);
  }
}
