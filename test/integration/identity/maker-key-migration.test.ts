import { randomUUID } from 'node:crypto';
import { MakerKeyOnePerAddress1764000500000 } from '../../../migrations/1764000500000-maker-key-one-per-address';
import { createTestEnv, type TestEnv } from '../../support/test-env';
import { newWallet } from '../../support/wallets';

/**
 * Deployments that ran the old route may hold several active keys on one bot wallet; the
 * migration must still build its unique index, keeping the first binding.
 */
describe('migration 1764000500000: one active maker key per bot wallet', () => {
  let env: TestEnv;
  const migration = new MakerKeyOnePerAddress1764000500000();

  beforeAll(async () => {
    env = await createTestEnv();
  });
  afterAll(() => env.close());

  async function insertKey(org: string, address: string, createdAt: string, revoked = false): Promise<string> {
    const id = randomUUID();
    await env.db.query(
      `INSERT INTO api_keys (id, organization_id, kind, name, address, secret_hash, created_by, created_at, revoked_at)
       VALUES ($1, $2, 'maker', 'k', $3, $4, $3, $5, $6)`,
      [id, org, address, randomUUID().replace(/-/g, '').padEnd(64, '0'), createdAt, revoked ? createdAt : null],
    );
    return id;
  }

  it('keeps the oldest active key per wallet (any case), revokes the later ones, then refuses new duplicates', async () => {
    const q = env.db.createQueryRunner();
    try {
      await migration.down(q);
      const orgs = [randomUUID(), randomUUID()];
      for (const id of orgs) await env.db.query(`INSERT INTO organizations (id, kind, name) VALUES ($1, 'maker', $2)`, [id, `org ${id}`]);
      const shared = newWallet().address;
      const other = newWallet().address;
      const first = await insertKey(orgs[0], shared, '2026-01-01T00:00:00Z');
      const copy = await insertKey(orgs[1], shared.toLowerCase(), '2026-01-02T00:00:00Z');
      const again = await insertKey(orgs[0], shared, '2026-01-03T00:00:00Z');
      const alreadyRevoked = await insertKey(orgs[1], shared, '2025-12-01T00:00:00Z', true);
      const alone = await insertKey(orgs[1], other, '2026-01-02T00:00:00Z');

      await migration.up(q);

      const rows: { id: string; revoked_at: Date | null }[] = await env.db.query(`SELECT id, revoked_at FROM api_keys WHERE id = ANY($1)`, [
        [first, copy, again, alreadyRevoked, alone],
      ]);
      const active = rows
        .filter((r) => r.revoked_at === null)
        .map((r) => r.id)
        .sort();
      expect(active).toEqual([first, alone].sort());
      await expect(insertKey(orgs[1], shared.toLowerCase(), '2026-02-01T00:00:00Z')).rejects.toMatchObject({ code: '23505' });
    } finally {
      await q.release();
    }
  });
});
