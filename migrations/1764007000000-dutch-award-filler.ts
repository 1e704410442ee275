import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Dutch awards name their winner's filler address instead of committing to an exclusive salt
 * (docs/DUTCH.md, "Filling"): a bid records the address that will call executeDutchFill (the
 * maker's wallet unless the bid names another), and the salt column, which nothing reads any
 * more, goes. Awards made before this carry a salt hash the new mothership does not know;
 * `down` brings the column back empty.
 */
export class DutchAwardFiller1764007000000 implements MigrationInterface {
  name = 'DutchAwardFiller1764007000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE dutch_bids ADD COLUMN filler text`);
    await q.query(`UPDATE dutch_bids SET filler = maker`);
    await q.query(`ALTER TABLE dutch_bids ALTER COLUMN filler SET NOT NULL`);
    await q.query(`ALTER TABLE quotes DROP COLUMN exclusive_salt`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE quotes ADD COLUMN exclusive_salt text`);
    await q.query(`ALTER TABLE dutch_bids DROP COLUMN filler`);
  }
}
