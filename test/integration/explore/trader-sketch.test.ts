import { createHash } from 'node:crypto';
import { ClobExploreRepository, EXACT_TRADER_DAYS } from '../../../shared/explore/clob/clob-explore.repository';
import { estimateDistinct, mergeSketches, SKETCH_REGISTERS, splitSketches } from '../../../shared/explore/clob/trader-sketch';
import { SKETCH_REGISTERS as MIGRATION_REGISTERS } from '../../../migrations/1764007700200-trader-sketches';
import { NetworksService } from '../../../shared/networks';
import { createTestEnv, type TestEnv } from '../../support/test-env';

/**
 * Unique traders over long windows: exact up to EXACT_TRADER_DAYS trader-days, then estimated
 * from the days' HyperLogLog sketches, which the triggers on indexer_clob_traders keep equal to
 * sketches built from scratch through inserts and deletes (a reorg's rollback deletes).
 */
const CHAIN = 31337;
const PAIR = '0x3000000000000000000000000000000000000009';
const wallet = (i: number) => `0x${i.toString(16).padStart(40, '0')}`;

let env: TestEnv;
let repo: ClobExploreRepository;

/** Adds trader-days for wallets [from, to) on `day`, in one statement (as the indexer's batch writes them). */
async function trade(day: string, from: number, to: number): Promise<void> {
  await env.db.query(
    `INSERT INTO indexer_clob_traders (chain_id, pair, day, trader, fills)
     SELECT $1, $2, $3::date, '0x' || lpad(to_hex(i), 40, '0'), 1 FROM generate_series($4::int, $5::int - 1) i`,
    [CHAIN, PAIR, day, from, to],
  );
}

/** The sketches as stored against the ones built from scratch, and how many there are. */
async function expectSketchesFresh(): Promise<number> {
  const stored = await env.db.query(`SELECT day, registers FROM indexer_clob_trader_sketch WHERE chain_id = $1 AND pair = $2 ORDER BY day`, [CHAIN, PAIR]);
  const fresh = await env.db.query(
    `SELECT day, indexer_trader_sketch_of(chain_id, pair, day) AS registers
       FROM (SELECT DISTINCT chain_id, pair, day FROM indexer_clob_traders WHERE chain_id = $1 AND pair = $2) d ORDER BY day`,
    [CHAIN, PAIR],
  );
  expect(stored).toEqual(fresh);
  return stored.length;
}

beforeAll(async () => {
  env = await createTestEnv();
  await new NetworksService(env.db).upsertNetwork({
    chain_id: CHAIN,
    name: 'sketches',
    rpc_urls: ['http://127.0.0.1:9'],
    contracts: {},
    enabled: false,
    confirmations: 0,
    tokens: [],
  });
  repo = new ClobExploreRepository(env.db);
}, 60_000);

afterAll(async () => {
  await env?.close();
});

describe('the estimate itself', () => {
  /** Registers filled as the migration's SQL does, from a 64-bit hash (here sha256's first 8 bytes). */
  function sketchOf(from: number, to: number, salt: string): Uint8Array {
    const r = new Uint8Array(SKETCH_REGISTERS);
    for (let i = from; i < to; i++) {
      const h = createHash('sha256').update(`${salt}:${i}`).digest().readBigUInt64BE(0);
      const slot = Number(h & BigInt(SKETCH_REGISTERS - 1));
      const w = (h >> 11n) & ((1n << 53n) - 1n);
      const rank = 54 - (w === 0n ? 0 : w.toString(2).length);
      if (rank > r[slot]) r[slot] = rank;
    }
    return r;
  }

  it('is within 3 standard errors (7 %) from 10 to 200,000 distinct items, and merging counts the union once', () => {
    expect(MIGRATION_REGISTERS).toBe(SKETCH_REGISTERS);
    for (const n of [10, 100, 1_000, 10_000, 200_000]) {
      const est = estimateDistinct(sketchOf(0, n, `n${n}`));
      expect({ n, off: Math.abs(est - n) / n < 0.07 }).toEqual({ n, off: true });
    }
    // Two overlapping parts of one set, each sketched alone, merge to the set's sketch exactly.
    expect(mergeSketches([sketchOf(0, 30_000, 'u'), sketchOf(20_000, 50_000, 'u')])).toEqual(sketchOf(0, 50_000, 'u'));
    expect(() => mergeSketches([new Uint8Array(10)])).toThrow('a trader sketch has 10 registers, not 2048');
    // The summary's statement returns the days end to end: cut back into days, or refused when not whole days.
    const two = sketchOf(0, 30_000, 'u');
    const joined = Buffer.concat([two, sketchOf(20_000, 50_000, 'u')]);
    expect(splitSketches(joined).map((d) => Buffer.from(d))).toEqual([Buffer.from(two), Buffer.from(sketchOf(20_000, 50_000, 'u'))]);
    expect(splitSketches(new Uint8Array(0))).toEqual([]);
    expect(() => splitSketches(joined.subarray(1))).toThrow(`trader sketches of ${2 * SKETCH_REGISTERS - 1} bytes are not whole sketches of 2048 registers`);
  });
});

describe('unique traders over a window', () => {
  it('are exact up to the trader-day limit, estimated past it, and the sketches follow every insert and delete', async () => {
    // Three days of 1,500 wallets each, each day 500 wallets on from the one before: 2,500 distinct, 4,500 trader-days.
    await trade('2026-03-01', 0, 1_000);
    await trade('2026-03-01', 1_000, 1_500); // a second statement on the same day
    await trade('2026-03-02', 500, 2_000);
    await trade('2026-03-03', 1_000, 2_500);
    expect(await expectSketchesFresh()).toBe(3);

    // One day: the rollup's count. Two days, 3,000 trader-days: past the limit, so estimated.
    expect(EXACT_TRADER_DAYS).toBeLessThan(3_000);
    expect(await repo.uniqueTraders(env.db, CHAIN, PAIR, '2026-03-02', '2026-03-02')).toEqual({ count: 1_500, estimated: false });
    const two = await repo.uniqueTraders(env.db, CHAIN, PAIR, '2026-03-01', '2026-03-02');
    expect(two.estimated).toBe(true);
    expect(Math.abs(two.count - 2_000) / 2_000).toBeLessThan(0.07);
    const { count: three, estimated } = await repo.uniqueTraders(env.db, CHAIN, PAIR, '2026-02-01', '2026-03-31');
    expect(estimated).toBe(true);
    expect(Math.abs(three - 2_500) / 2_500).toBeLessThan(0.07);
    // Never below the busiest day, never above the trader-days.
    expect(three).toBeGreaterThanOrEqual(1_500);
    expect(three).toBeLessThanOrEqual(4_500);

    // A reorg takes day 3's later wallets and all of day 2 away: sketches rebuilt, day 2's gone.
    await env.db.query(`DELETE FROM indexer_clob_traders WHERE chain_id = $1 AND pair = $2 AND day = '2026-03-03' AND trader >= $3`, [
      CHAIN,
      PAIR,
      wallet(1_600),
    ]);
    await env.db.query(`DELETE FROM indexer_clob_traders WHERE chain_id = $1 AND pair = $2 AND day = '2026-03-02'`, [CHAIN, PAIR]);
    expect(await expectSketchesFresh()).toBe(2);
    // Now 1,500 + 600 = 2,100 trader-days (still past the limit) over 1,600 wallets.
    const after = await repo.uniqueTraders(env.db, CHAIN, PAIR, '2026-03-01', '2026-03-03');
    expect(after.estimated).toBe(true);
    expect(Math.abs(after.count - 1_600) / 1_600).toBeLessThan(0.07);

    // Under the limit the count is exact: 1,500 + 100 trader-days over 1,500 wallets.
    await env.db.query(`DELETE FROM indexer_clob_traders WHERE chain_id = $1 AND pair = $2 AND day = '2026-03-03' AND trader >= $3`, [
      CHAIN,
      PAIR,
      wallet(1_100),
    ]);
    expect(await expectSketchesFresh()).toBe(2);
    expect(await repo.uniqueTraders(env.db, CHAIN, PAIR, '2026-03-01', '2026-03-03')).toEqual({ count: 1_500, estimated: false });

    // A fill count changing touches no sketch; everything gone leaves none.
    await env.db.query(`UPDATE indexer_clob_traders SET fills = fills + 1 WHERE chain_id = $1 AND pair = $2`, [CHAIN, PAIR]);
    expect(await expectSketchesFresh()).toBe(2);
    await env.db.query(`DELETE FROM indexer_clob_traders WHERE chain_id = $1 AND pair = $2`, [CHAIN, PAIR]);
    expect(await expectSketchesFresh()).toBe(0);
    expect(await repo.uniqueTraders(env.db, CHAIN, PAIR, '2026-03-01', '2026-03-03')).toEqual({ count: 0, estimated: false });
  }, 60_000);
});
