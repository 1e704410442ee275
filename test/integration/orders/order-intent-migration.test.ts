import { randomUUID } from 'node:crypto';
import { OrderIntentUniqueness1764007200000 } from '../../../migrations/1764007200000-order-intent-uniqueness';
import { NetworksService } from '../../../shared/networks';
import { networkFile } from '../../support/fixtures';
import { FIXTURE_PAIR, FIXTURE_USDC } from '../../support/quotes';
import { createTestEnv, type TestEnv } from '../../support/test-env';
import { newWallet } from '../../support/wallets';

/**
 * Migration 1764007200000 swaps the orders' unique nonce key for a unique intent hash. Its down
 * must restore the nonce key even when records now share a nonce: per nonce it keeps the placed
 * record, else the one the owner recorded, else the oldest.
 */
describe('migration 1764007200000: orders unique by intent hash', () => {
  let env: TestEnv;
  const migration = new OrderIntentUniqueness1764007200000();
  const owner = newWallet().address;

  beforeAll(async () => {
    env = await createTestEnv();
    await new NetworksService(env.db).upsertNetwork(networkFile(31337));
  });
  afterAll(() => env.close());

  /** An order row; `migrated: false` writes it as the schema before the migration had it (no recorded_by_owner). */
  async function insertOrder(nonce: string, hash: string, opts: { byOwner?: boolean; createdAt?: string; migrated?: boolean } = {}): Promise<string> {
    const id = randomUUID();
    const flag = opts.migrated === false ? '' : ', recorded_by_owner';
    await env.db.query(
      `INSERT INTO orders (id, chain_id, owner_address, pair, premium_token, nonce_prefix, nonce, amount, intent_hash, destination, data, expires_at, created_at${flag})
       VALUES ($1, 31337, $2, $3, $4, 7, $5, 1, $6, '{}', '{}', now() + interval '1 hour', $7${flag ? ', $8' : ''})`,
      [id, owner, FIXTURE_PAIR, FIXTURE_USDC, nonce, hash, opts.createdAt ?? new Date().toISOString(), ...(flag ? [opts.byOwner ?? false] : [])],
    );
    return id;
  }

  const hash = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;

  it("records share a nonce while up; down keeps the placed, else the owner's, else the oldest, and restores the nonce key; up again", async () => {
    const q = env.db.createQueryRunner();
    try {
      // Nonce 1: a squatter's record first, then the owner's placed one.
      const squat1 = await insertOrder('1', hash(1), { createdAt: '2026-01-01T00:00:00Z' });
      const placed = await insertOrder('1', hash(2), { createdAt: '2026-01-02T00:00:00Z' });
      await env.db.query(
        `INSERT INTO indexer_order_intents (chain_id, block_number, block_hash, block_timestamp, log_index, tx_hash, pair, order_id, intent_hash, owner, nonce_prefix, nonce)
         VALUES (31337, 1, $1, 0, 0, $1, $2, 1, $3, $4, 7, 1)`,
        [hash(99), FIXTURE_PAIR, hash(2), owner],
      );
      // Nonce 2: a squatter's record first, then the owner's own (unplaced).
      const squat2 = await insertOrder('2', hash(3), { createdAt: '2026-01-01T00:00:00Z' });
      const own = await insertOrder('2', hash(4), { byOwner: true, createdAt: '2026-01-02T00:00:00Z' });
      // Nonce 3: two strangers' records: the oldest stays.
      const oldest = await insertOrder('3', hash(5), { createdAt: '2026-01-01T00:00:00Z' });
      const newer = await insertOrder('3', hash(6), { createdAt: '2026-01-02T00:00:00Z' });
      // The same intent twice is refused while up.
      await expect(insertOrder('4', hash(5))).rejects.toThrow(/orders_intent_hash_key/);

      await migration.down(q);
      const left: { id: string }[] = await env.db.query(`SELECT id FROM orders WHERE owner_address = $1`, [owner]);
      expect(left.map((r) => r.id).sort()).toEqual([placed, own, oldest].sort());
      expect([squat1, squat2, newer].filter((id) => left.some((r) => r.id === id))).toEqual([]);
      await expect(insertOrder('1', hash(7), { migrated: false })).rejects.toThrow(/orders_chain_id_pair_owner_address_nonce_prefix_nonce_key/);

      await migration.up(q);
      await insertOrder('1', hash(8));
      expect((await env.db.query(`SELECT recorded_by_owner FROM orders WHERE id = $1`, [own]))[0].recorded_by_owner).toBe(false);
    } finally {
      await q.release();
    }
  });
});
