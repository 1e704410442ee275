import type { Hex } from 'viem';
import { rollbackDerived, startChangeset, writeDerived, type ProjectedRow } from '../../../indexer/store/derived-tables';
import { ClobExploreService } from '../../../shared/explore/clob/clob-explore.service';
import { NetworksService } from '../../../shared/networks';
import { encodeOptionId } from '../../../shared/protocol';
import { fakeHash, seededRandom } from '../../support/fixtures';
import { fillRows, placedRows, transferRows } from '../../support/indexed-rows';
import { createTestEnv, type TestEnv } from '../../support/test-env';

/**
 * `GET /api/explore/clobs/:address` (ClobExploreService.overview) against an oracle that reads
 * nothing but the raw activity rows: series with open interest, placements and transfers, each
 * series' 7-day fills and volume, the 1- and 7-day windows with the 7-day distinct traders, and
 * the last fill. The overview reads the rollups the indexer keeps (indexer_clob_series,
 * indexer_clob_daily, indexer_clob_pair_daily, indexer_clob_traders); the history is written as
 * the indexer writes it (writeDerived) around the present, with fills on the windows' edges, and
 * undone as a reorg undoes it (rollbackDerived). After each step both must agree.
 */
const CHAIN = 31337;
const PAIR = '0x3000000000000000000000000000000000000005' as Hex;
const OTHER_PAIR = '0x3000000000000000000000000000000000000006' as Hex;
const ZERO = '0x0000000000000000000000000000000000000000' as Hex;
const WALLETS = Array.from({ length: 7 }, (_, i) => `0x${(0xb0 + i).toString(16).padStart(40, '0')}` as Hex);
const DAY = 86_400;
const NOW = Math.floor(Date.now() / 1000);
const TODAY_START = NOW - (NOW % DAY);
/** Series of the pair: one expired a day ago, two live. */
const SERIES = [NOW - DAY, NOW + 7 * DAY, NOW + 30 * DAY].map((expiry, i) =>
  encodeOptionId({
    option_type: i % 2 === 0 ? 0 : 1,
    strike_wad: BigInt(2000 + 500 * i) * 10n ** 18n,
    expiry_timestamp: expiry,
    start_exercise_timestamp: 0,
  }).toString(),
);

let env: TestEnv;
let service: ClobExploreService;

const rnd = seededRandom(11);
const hash = fakeHash;

/**
 * Block `block` at `timestamp`: the pair's creation (block 1), placements, mints and burns, and
 * `fills` fills; some go to another pair, which the overview must leave out.
 */
async function writeBlock(block: number, timestamp: number, fills: number): Promise<void> {
  const c = startChangeset();
  const add = (r: ProjectedRow) => c.add(r);
  let log = 0;
  const pos = () => ({ block_number: block, block_hash: hash(block, 1), block_timestamp: timestamp, log_index: log, tx_hash: hash(block * 100 + log++, 2) });
  if (block === 1)
    for (const address of [PAIR, OTHER_PAIR]) {
      const p = pos();
      add({
        table: 'indexer_pairs',
        row: {
          address,
          factory: ZERO,
          token0: WALLETS[0],
          token1: WALLETS[1],
          premium_token: WALLETS[2],
          created_block: block,
          created_block_hash: p.block_hash,
          created_log_index: p.log_index,
          tx_hash: p.tx_hash,
        },
      });
    }
  for (let i = 0; i < 2; i++) {
    const p = pos();
    const pair = rnd(4) === 0 ? OTHER_PAIR : PAIR;
    const option_id = SERIES[rnd(SERIES.length)];
    const placed = { pair, option_id, order_id: String(block * 10 + i), is_buy: rnd(2) === 0, price: String(1 + rnd(40)), amount: '5' };
    for (const r of placedRows(p, { ...placed, owner: WALLETS[rnd(WALLETS.length)] })) add(r);
    add({ table: 'indexer_clob_series', row: { pair, option_id, block, oi_delta: 0n, placed: 1, transfer: 0 } });
  }
  // A mint, and now and then a burn: open interest moves.
  for (const burn of [false, rnd(3) === 0]) {
    const p = pos();
    const option_id = SERIES[rnd(SERIES.length)];
    const amount = BigInt(1 + rnd(20));
    const holder = WALLETS[rnd(WALLETS.length)];
    const [from, to] = burn ? [holder, ZERO] : [ZERO, holder];
    for (const r of transferRows(p, { pair: PAIR, option_id, amount: amount.toString(), sender: from, receiver: to })) add(r);
    add({ table: 'indexer_clob_series', row: { pair: PAIR, option_id, block, oi_delta: burn ? -amount : amount, placed: 0, transfer: 1 } });
  }
  for (let i = 0; i < fills; i++) {
    const p = pos();
    const pair = rnd(5) === 0 ? OTHER_PAIR : PAIR;
    const option_id = SERIES[rnd(SERIES.length)];
    const maker = WALLETS[rnd(WALLETS.length)];
    const taker = rnd(6) === 0 ? maker : WALLETS[rnd(WALLETS.length)];
    const amount = BigInt(1 + rnd(500));
    const price = BigInt(1 + rnd(60));
    rnd(2); // the side a fill row once carried: drawn still, so the generated history stays the same
    for (const r of fillRows(p, { pair, option_id, order_id: String(block * 10 + i), price, amount, maker, taker })) add(r);
  }
  await env.db.transaction(async (m) => {
    await writeDerived(m, CHAIN, c.done());
    await m.query(
      `INSERT INTO indexer_cursors (chain_id, contract_set, block_number, block_hash, block_timestamp) VALUES ($1, 'oracle', $2, $3, $4)
       ON CONFLICT (chain_id, contract_set) DO UPDATE SET block_number = EXCLUDED.block_number, block_hash = EXCLUDED.block_hash, block_timestamp = EXCLUDED.block_timestamp`,
      [CHAIN, block, hash(block, 1), timestamp],
    );
  });
}

/** The history: block n at a time walking from ten days ago to now, with fills on the windows' edges. */
const TIMES = [
  NOW - 10 * DAY,
  TODAY_START - 7 * DAY + 3600, // outside the 7-day window (it starts 6 days before today)
  TODAY_START - 6 * DAY - 1, // the last second before the 7-day window
  TODAY_START - 6 * DAY, // its first second
  TODAY_START - 3 * DAY + 7200,
  TODAY_START - 1, // the last second of yesterday: in 7 days, not in 1
  TODAY_START, // the first second of today
  Math.max(TODAY_START, NOW - 60),
];

async function expectOracle(): Promise<void> {
  const answer = await service.overview(PAIR, CHAIN);
  const [day1, day7] = answer.windows;
  // The answer names its days; the oracle counts the same ones (a run across midnight stays honest).
  expect(day1.to_day === new Date(NOW * 1000).toISOString().slice(0, 10) || day1.to_day === new Date(Date.now()).toISOString().slice(0, 10)).toBe(true);
  expect(day7.from_day).toBe(new Date(Date.parse(`${day7.to_day}T00:00:00Z`) - 6 * DAY * 1000).toISOString().slice(0, 10));
  const inDays = (from: string, to: string) =>
    `(to_timestamp(block_timestamp) AT TIME ZONE 'UTC')::date BETWEEN '${from}'::date AND '${to}'::date AND chain_id = ${CHAIN} AND pair = '${PAIR}'`;
  const windowOf = async (from: string, to: string) =>
    (
      await env.db.query(
        `SELECT count(*)::int AS fills, COALESCE(sum(amount), 0)::text AS volume, COALESCE(sum(amount * price), 0)::text AS premium_volume
           FROM indexer_clob_activity WHERE kind = 'filled' AND ${inDays(from, to)}`,
      )
    )[0] as { fills: number; volume: string; premium_volume: string };

  expect({ fills: day1.fills, volume: day1.volume, premium_volume: day1.premium_volume }).toEqual(await windowOf(day1.from_day, day1.to_day));
  expect({ fills: day7.fills, volume: day7.volume, premium_volume: day7.premium_volume }).toEqual(await windowOf(day7.from_day, day7.to_day));
  const [{ traders }] = await env.db.query(
    `SELECT count(DISTINCT w)::int AS traders FROM indexer_clob_activity, LATERAL (VALUES (account), (counterparty)) v(w)
      WHERE kind = 'filled' AND ${inDays(day7.from_day, day7.to_day)}`,
  );
  expect(day7 as { unique_traders?: number; unique_traders_estimated?: boolean }).toMatchObject({ unique_traders: traders, unique_traders_estimated: false });

  const series: {
    option_id: string;
    open_interest: string;
    orders_placed: number;
    transfers: number;
    first_block: number;
    fills_7d: number;
    volume_7d: string;
  }[] = await env.db.query(
    `SELECT s.option_id::text AS option_id, s.open_interest::text AS open_interest, s.orders_placed, s.transfers, s.first_block,
              COALESCE(f.fills, 0) AS fills_7d, COALESCE(f.volume, 0)::text AS volume_7d
         FROM (SELECT option_id,
                      sum(CASE WHEN kind <> 'transfer' OR account = counterparty THEN 0 WHEN account = $1 THEN amount WHEN counterparty = $1 THEN -amount ELSE 0 END) AS open_interest,
                      count(*) FILTER (WHERE kind = 'placed')::int AS orders_placed, count(*) FILTER (WHERE kind = 'transfer')::int AS transfers,
                      min(block_number)::int AS first_block
                 FROM indexer_clob_activity WHERE chain_id = ${CHAIN} AND pair = '${PAIR}' AND kind IN ('placed', 'transfer') GROUP BY option_id) s
         LEFT JOIN (SELECT option_id, count(*)::int AS fills, sum(amount) AS volume FROM indexer_clob_activity
                     WHERE kind = 'filled' AND ${inDays(day7.from_day, day7.to_day)} GROUP BY option_id) f ON f.option_id = s.option_id
        ORDER BY s.option_id`,
    [ZERO],
  );
  expect(
    answer.series.map((s) => ({
      option_id: s.option_id,
      open_interest: s.open_interest,
      orders_placed: s.orders_placed,
      transfers: s.transfers,
      first_block: s.first_block,
      fills_7d: s.fills_7d,
      volume_7d: s.volume_7d,
    })),
  ).toEqual(series);
  expect(answer.open_interest).toBe(series.reduce((sum, s) => sum + BigInt(s.open_interest), 0n).toString());
  for (const s of answer.series) expect(s.expired).toBe(s.expiry_timestamp !== null && s.expiry_timestamp <= Math.floor(Date.now() / 1000));

  const [last] = await env.db.query(
    `SELECT block_number::int AS block_number, log_index, tx_hash FROM indexer_clob_activity
      WHERE chain_id = ${CHAIN} AND pair = '${PAIR}' AND kind = 'filled' ORDER BY block_number DESC, log_index DESC LIMIT 1`,
  );
  if (last) expect(answer.last_fill).toMatchObject(last);
  else expect(answer.last_fill).toBeNull();
}

beforeAll(async () => {
  env = await createTestEnv();
  await new NetworksService(env.db).upsertNetwork({
    chain_id: CHAIN,
    name: 'overview oracle',
    rpc_urls: ['http://127.0.0.1:9'],
    contracts: {},
    enabled: false,
    confirmations: 0,
    tokens: [],
  });
  service = new ClobExploreService(env.db);
}, 60_000);

afterAll(async () => {
  await env?.close();
});

describe('the CLOB overview against the raw activity', () => {
  it('agrees after every block of a history around the present, with fills on the windows edges, and after reorgs', async () => {
    for (let i = 0; i < TIMES.length; i++) {
      await writeBlock(i + 1, TIMES[i], 6);
      await expectOracle();
    }
    const answer = await service.overview(PAIR, CHAIN);
    // The history holds what the comparisons are for: fills in both windows and outside them, a live and an expired series.
    expect(answer.windows[0].fills).toBeGreaterThan(0);
    expect(answer.windows[1].fills).toBeGreaterThan(answer.windows[0].fills);
    const [{ outside }] = await env.db.query(
      `SELECT count(*)::int AS outside FROM indexer_clob_activity WHERE pair = $1 AND kind = 'filled' AND block_timestamp < $2`,
      [PAIR, TODAY_START - 6 * DAY],
    );
    expect(outside).toBeGreaterThan(0);
    expect(answer.series.some((s) => s.expired)).toBe(true);
    expect(answer.series.some((s) => !s.expired)).toBe(true);

    // Reorgs: the newest block (today's fills go), then back across the 7-day window's first day.
    for (const at of [TIMES.length - 1, 3]) {
      await env.db.transaction((m) => rollbackDerived(m, CHAIN, at));
      await expectOracle();
    }
  }, 120_000);
});
