import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A Dutch bid records the maker organization it was made for (the maker key's issuing
 * organization, or the bidding wallet's own membership), so its fade is decided by that
 * organization and never by a membership another organization could add later. Older bids
 * have none and fall back to the key-first lookup (shared/dutch/dutch-fades.ts).
 */
export class BidOrganization1764008100000 implements MigrationInterface {
  name = 'BidOrganization1764008100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE dutch_bids ADD COLUMN organization_id uuid`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE dutch_bids DROP COLUMN organization_id`);
  }
}
