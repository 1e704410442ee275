import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * BondVault withdrawals in two steps: a request (kind `request`, with the time it becomes
 * withdrawable) leaves the bond in the vault but no longer available to the API's fill bond
 * check. Dutch exclusive windows as the chain decided them: one row per awarded quote once the
 * chain's time passed its exclusive end, `faded` when its winner did not fill in the window
 * (rolled back with the block that decided it).
 */
export class BondWithdrawalsDutchFades1764007100000 implements MigrationInterface {
  name = 'BondWithdrawalsDutchFades1764007100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE indexer_bond_events DROP CONSTRAINT indexer_bond_events_kind_check`);
    await q.query(`ALTER TABLE indexer_bond_events ADD CONSTRAINT indexer_bond_events_kind_check CHECK (kind IN ('deposit','request','withdraw'))`);
    await q.query(`ALTER TABLE indexer_bond_events ADD COLUMN withdrawable_at bigint`);
    // The latest request or withdrawal of a (maker, token) says what is pending: this index finds it in one step.
    await q.query(
      `CREATE INDEX indexer_bond_events_pending ON indexer_bond_events (chain_id, maker, token, block_number DESC, log_index DESC) WHERE kind IN ('request','withdraw')`,
    );
    await q.query(`
      CREATE TABLE dutch_exclusive_outcomes (
        quote_id          uuid PRIMARY KEY,
        chain_id          integer NOT NULL REFERENCES networks(chain_id) ON DELETE CASCADE,
        winner            text NOT NULL,
        organization_id   uuid,
        faded             boolean NOT NULL,
        exclusive_ends_at timestamptz NOT NULL,
        decided_block     bigint NOT NULL,
        decided_block_timestamp bigint NOT NULL,
        created_at        timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX dutch_exclusive_outcomes_block ON dutch_exclusive_outcomes (chain_id, decided_block)`);
    await q.query(`CREATE INDEX dutch_fades_by_org ON dutch_exclusive_outcomes (organization_id, exclusive_ends_at) WHERE faded`);
    await q.query(`CREATE INDEX dutch_fades_by_winner ON dutch_exclusive_outcomes (lower(winner), exclusive_ends_at) WHERE faded`);
    // Awarded quotes by their exclusive end: what the indexer scans for windows the chain's time passed.
    await q.query(`CREATE INDEX quotes_dutch_awarded_ends ON quotes (chain_id, exclusive_ends_at) WHERE winner IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX quotes_dutch_awarded_ends`);
    await q.query(`DROP TABLE dutch_exclusive_outcomes`);
    await q.query(`DROP INDEX indexer_bond_events_pending`);
    await q.query(`DELETE FROM indexer_bond_events WHERE kind = 'request'`);
    await q.query(`ALTER TABLE indexer_bond_events DROP COLUMN withdrawable_at`);
    await q.query(`ALTER TABLE indexer_bond_events DROP CONSTRAINT indexer_bond_events_kind_check`);
    await q.query(`ALTER TABLE indexer_bond_events ADD CONSTRAINT indexer_bond_events_kind_check CHECK (kind IN ('deposit','withdraw'))`);
  }
}
