import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Unfillable takers (docs/DUTCH.md, "Unfillable takers"): a Dutch window the taker made
 * impossible to fill is not its winner's fade but the taker's. A Dutch quote records the taker
 * organization of the delegate that created it; when an awarded window ends, the workers read
 * from the chain whether the paying taker's premium balance and allowance covered the winner's
 * price (`dutch_taker_checks`, one row per quote); the indexer's decision of the window records a
 * missed window whose taker was short against the taker (`taker_unfillable`), not as a fade.
 */
export class DutchTakerUnfillable1764201000000 implements MigrationInterface {
  name = 'DutchTakerUnfillable1764201000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE quotes ADD COLUMN taker_organization_id uuid`);
    await q.query(`
      CREATE TABLE dutch_taker_checks (
        quote_id        uuid PRIMARY KEY REFERENCES quotes(id) ON DELETE CASCADE,
        chain_id        integer NOT NULL,
        taker           text NOT NULL,
        token           text NOT NULL,
        spender         text NOT NULL,
        owed            numeric(78,0) NOT NULL,
        balance         numeric(78,0) NOT NULL,
        allowance       numeric(78,0) NOT NULL,
        short           boolean NOT NULL,
        block_number    bigint NOT NULL,
        block_timestamp bigint NOT NULL,
        checked_at      timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`ALTER TABLE dutch_exclusive_outcomes ADD COLUMN taker_unfillable boolean NOT NULL DEFAULT false`);
    await q.query(`ALTER TABLE dutch_exclusive_outcomes ADD COLUMN taker text`);
    await q.query(`ALTER TABLE dutch_exclusive_outcomes ADD COLUMN taker_organization_id uuid`);
    await q.query(`CREATE INDEX dutch_unfillable_by_taker ON dutch_exclusive_outcomes (lower(taker), exclusive_ends_at) WHERE taker_unfillable`);
    await q.query(
      `CREATE INDEX dutch_unfillable_by_taker_org ON dutch_exclusive_outcomes (taker_organization_id, exclusive_ends_at) WHERE taker_unfillable AND taker_organization_id IS NOT NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX dutch_unfillable_by_taker_org`);
    await q.query(`DROP INDEX dutch_unfillable_by_taker`);
    await q.query(`ALTER TABLE dutch_exclusive_outcomes DROP COLUMN taker_organization_id`);
    await q.query(`ALTER TABLE dutch_exclusive_outcomes DROP COLUMN taker`);
    await q.query(`ALTER TABLE dutch_exclusive_outcomes DROP COLUMN taker_unfillable`);
    await q.query(`DROP TABLE dutch_taker_checks`);
    await q.query(`ALTER TABLE quotes DROP COLUMN taker_organization_id`);
  }
}
