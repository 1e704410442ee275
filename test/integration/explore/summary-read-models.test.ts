import type { Hex } from 'viem';
import { rollbackDerived, startChangeset, writeDerived, type ProjectedRow } from '../../../indexer/store/derived-tables';
import { AT_RISK_WAD, LIQUIDATABLE_WAD } from '../../../migrations/1764007700000-summary-read-models';
import { ClobExploreRepository } from '../../../shared/explore/clob/clob-explore.repository';
import { LoanRepository } from '../../../shared/loans/loan.repository';
import { LOAN_AT_RISK_HEALTH_WAD, WAD } from '../../../shared/loans/health';
import { NetworksService } from '../../../shared/networks';
import { fakeHash, seededRandom } from '../../support/fixtures';
import { fillRows } from '../../support/indexed-rows';
import { createTestEnv, type TestEnv } from '../../support/test-env';

/**
 * The read models behind the CLOB summary, the books and the loan summary (indexer_clob_pair_daily,
 * indexer_clob_levels, indexer_loan_token_totals, indexer_loan_health_counts) against an oracle:
 * the SQL those routes ran before them, over the full history, kept here verbatim. History is written as
 * the indexer writes it (writeDerived, one transaction per batch) and undone as a reorg undoes
 * it (rollbackDerived); after every step the read-model answers must equal the oracle's.
 */
const CHAIN = 31337;
const PAIRS = ['0x3000000000000000000000000000000000000003', '0x3000000000000000000000000000000000000004'] as Hex[];
const SERIES = ['11', '12', '13'];
const WALLETS = Array.from({ length: 9 }, (_, i) => `0x${(0xa0 + i).toString(16).padStart(40, '0')}` as Hex);
const TOKENS = [
  '0x7000000000000000000000000000000000000001',
  '0x7000000000000000000000000000000000000002',
  '0x7000000000000000000000000000000000000003',
] as Hex[];
const MARKET = '0x4000000000000000000000000000000000000004' as Hex;
const ORACLE = '0x5000000000000000000000000000000000000005' as Hex;
const T0 = Date.parse('2026-01-01T00:00:00Z') / 1000;
const HOURS = 3600;

let env: TestEnv;
let clob: ClobExploreRepository;
let loans: LoanRepository;

const rnd = seededRandom(7);

const hash = fakeHash;
const pos = (block: number, log: number) => ({
  block_number: block,
  block_hash: hash(block, 1),
  block_timestamp: T0 + block * 5 * HOURS,
  log_index: log,
  tx_hash: hash(block * 100 + log, 2),
});

let nextLoan = 1;
let nextOrder = 1;
const placedOrders: { pair: Hex; order_id: string; amount: bigint }[] = [];
const openLoans: { loan_id: string; collateral: Hex; debt: Hex }[] = [];

/** One batch in `block`: fills across pairs, series, days and wallets; loans opened, repaid and repriced. */
async function writeBlock(block: number): Promise<void> {
  const c = startChangeset();
  const add = (r: ProjectedRow) => c.add(r);
  let log = 0;
  for (let i = 0; i < 12; i++) {
    const p = pos(block, log++);
    const pair = PAIRS[rnd(PAIRS.length)];
    const option_id = SERIES[rnd(SERIES.length)];
    const maker = WALLETS[rnd(WALLETS.length)];
    const taker = rnd(5) === 0 ? maker : WALLETS[rnd(WALLETS.length)];
    const amount = BigInt(1 + rnd(1000));
    const price = BigInt(1 + rnd(50));
    const order_id = String(block * 100 + i);
    rnd(2); // the side a fill row once carried: drawn still, so the generated history stays the same
    for (const r of fillRows(p, { pair, option_id, order_id, price, amount, maker, taker })) add(r);
  }
  // Orders on a few prices, so levels gather several; some older ones partly filled or cancelled.
  for (let i = 0; i < 8; i++) {
    const p = pos(block, log++);
    const pair = PAIRS[rnd(PAIRS.length)];
    const option_id = SERIES[rnd(SERIES.length)];
    const order_id = String(nextOrder++);
    const amount = BigInt(1 + rnd(100));
    const row = { pair, order_id, owner: WALLETS[rnd(WALLETS.length)], option_id, is_buy: rnd(2) === 0, price: String(10 + rnd(6)) };
    add({
      table: 'indexer_orders',
      row: {
        placed: {
          ...row,
          amount: amount.toString(),
          remaining: amount.toString(),
          state: 'open',
          placed_block: block,
          placed_block_hash: p.block_hash,
          placed_log_index: p.log_index,
          tx_hash: p.tx_hash,
          last_block: block,
          last_log_index: p.log_index,
        },
      },
    });
    add({ table: 'indexer_clob_series', row: { pair, option_id, block, oi_delta: 0n, placed: 1, transfer: 0 } });
    placedOrders.push({ pair, order_id, amount });
  }
  for (let i = 0; i < 3 && placedOrders.length > 8; i++) {
    const o = placedOrders[rnd(placedOrders.length - 8)];
    const cancel = rnd(3) === 0;
    add({
      table: 'indexer_orders',
      row: {
        change: {
          pair: o.pair,
          order_id: o.order_id,
          remaining: cancel ? '0' : String(rnd(Number(o.amount))),
          state: cancel ? 'cancelled' : 'open',
          last_block: block,
          last_log_index: log++,
        },
      },
    });
  }
  for (const token of TOKENS)
    add({
      table: 'indexer_prices',
      row: { ...pos(block, log++), oracle: ORACLE, token, price_wad: (BigInt(500 + rnd(1500)) * 10n ** 15n).toString(), decimals: 18 },
    });
  for (let i = 0; i < 4; i++) {
    const p = pos(block, log++);
    const loan_id = String(nextLoan++);
    const collateral = TOKENS[rnd(TOKENS.length)];
    const debt = TOKENS[(TOKENS.indexOf(collateral) + 1 + rnd(2)) % TOKENS.length];
    const collateralAmount = (BigInt(100 + rnd(100)) * 10n ** 18n).toString();
    const principal = (BigInt(50 + rnd(60)) * 10n ** 18n).toString();
    const rate_bps = 100 + rnd(900);
    add({
      table: 'indexer_loans',
      row: {
        opened: {
          market: MARKET,
          loan_id,
          borrower: WALLETS[rnd(WALLETS.length)],
          lender: WALLETS[rnd(WALLETS.length)],
          collateral_token: collateral,
          collateral_amount: collateralAmount,
          debt_token: debt,
          principal,
          principal_outstanding: principal,
          interest_paid: '0',
          rate_bps,
          threshold_bps: 8000,
          maturity: p.block_timestamp + 30 * 24 * HOURS,
          state: 'active',
          opened_block: block,
          opened_block_hash: p.block_hash,
          opened_log_index: p.log_index,
          opened_at: p.block_timestamp,
          tx_hash: p.tx_hash,
          last_block: block,
          last_log_index: p.log_index,
          closed_at: null,
        },
      },
    });
    add({
      table: 'indexer_loan_events',
      row: {
        ...p,
        market: MARKET,
        loan_id,
        kind: 'opened',
        actor: WALLETS[0],
        borrower: WALLETS[0],
        lender: WALLETS[1],
        collateral_token: collateral,
        debt_token: debt,
        collateral_delta: collateralAmount,
        collateral_after: collateralAmount,
        principal_delta: principal,
        principal_after: principal,
        interest_paid: '0',
      },
    });
    openLoans.push({ loan_id, collateral, debt });
  }
  // One older loan repaid in this block, when there is one.
  if (openLoans.length > 4) {
    const [gone] = openLoans.splice(rnd(openLoans.length - 4), 1);
    const p = pos(block, log);
    add({
      table: 'indexer_loans',
      row: {
        change: {
          market: MARKET,
          loan_id: gone.loan_id,
          collateral_amount: '0',
          principal_outstanding: '0',
          interest_paid: '1000',
          state: 'repaid',
          last_block: block,
          last_log_index: p.log_index,
          closed_at: p.block_timestamp,
        },
      },
    });
    add({
      table: 'indexer_loan_events',
      row: {
        ...p,
        market: MARKET,
        loan_id: gone.loan_id,
        kind: 'repaid',
        actor: WALLETS[0],
        borrower: null,
        lender: null,
        collateral_token: null,
        debt_token: null,
        collateral_delta: '0',
        collateral_after: '0',
        principal_delta: '0',
        principal_after: '0',
        interest_paid: '1000',
      },
    });
  }
  await env.db.transaction((m) => writeDerived(m, CHAIN, c.done()));
}

// The oracle: the summaries' queries before the read models, over the full history.
const oracle = {
  windowTotals: (pair: string, from: string, to: string, optionId?: string) =>
    env.db.query(
      `SELECT sum(fills) AS fills, sum(volume) AS volume, sum(premium_volume) AS premium_volume FROM indexer_clob_daily
        WHERE chain_id = $1 AND pair = $2 AND day >= $3::date AND day <= $4::date AND ($5::numeric IS NULL OR option_id = $5)`,
      [CHAIN, pair, from, to, optionId ?? null],
    ),
  days: (pair: string, from: string, to: string, optionId?: string) =>
    env.db.query(
      `SELECT to_char(d.day, 'YYYY-MM-DD') AS day, d.fills, d.volume, d.premium_volume, COALESCE(t.traders, 0) AS traders
         FROM (SELECT day, sum(fills) AS fills, sum(volume) AS volume, sum(premium_volume) AS premium_volume FROM indexer_clob_daily
                WHERE chain_id = $1 AND pair = $2 AND day >= $3::date AND day <= $4::date AND ($5::numeric IS NULL OR option_id = $5)
                GROUP BY day) d
         LEFT JOIN (SELECT day, count(*) AS traders FROM indexer_clob_traders
                     WHERE chain_id = $1 AND pair = $2 AND day >= $3::date AND day <= $4::date GROUP BY day) t ON t.day = d.day
        ORDER BY d.day`,
      [CHAIN, pair, from, to, optionId ?? null],
    ),
  uniqueTraders: async (pair: string, from: string, to: string) =>
    Number(
      (
        await env.db.query(
          `SELECT count(DISTINCT trader) AS n FROM indexer_clob_traders WHERE chain_id = $1 AND pair = $2 AND day >= $3::date AND day <= $4::date`,
          [CHAIN, pair, from, to],
        )
      )[0].n,
    ),
  debtTotals: () =>
    env.db.query(
      `SELECT chain_id, debt_token AS token, count(*)::text AS loans, sum(principal_outstanding)::text AS amount, avg(rate_bps)::text AS avg_rate_bps
         FROM indexer_loans WHERE state = 'active' AND chain_id = $1 GROUP BY chain_id, debt_token`,
      [CHAIN],
    ),
  collateralTotals: () =>
    env.db.query(
      `SELECT chain_id, collateral_token AS token, count(*)::text AS loans, sum(collateral_amount)::text AS amount, NULL AS avg_rate_bps
         FROM indexer_loans WHERE state = 'active' AND chain_id = $1 GROUP BY chain_id, collateral_token`,
      [CHAIN],
    ),
  levels: (pairs: string[], depth: number, optionId?: string) => {
    const level = (isBuy: boolean) => `
      SELECT s.pair, s.option_id, ${isBuy} AS is_buy, l.price, l.size, l.orders
        FROM indexer_clob_series s
        CROSS JOIN LATERAL (
          SELECT o.price, sum(o.remaining) AS size, count(*) AS orders FROM indexer_orders o
           WHERE o.chain_id = $1 AND o.pair = s.pair AND o.option_id = s.option_id AND o.is_buy = ${isBuy} AND o.state = 'open'
           GROUP BY o.price ORDER BY o.price ${isBuy ? 'DESC' : 'ASC'} LIMIT $3
        ) l
       WHERE s.chain_id = $1 AND s.pair = ANY($2::text[]) AND ($4::numeric IS NULL OR s.option_id = $4)`;
    return env.db.query(`${level(true)} UNION ALL ${level(false)}`, [CHAIN, pairs, depth, optionId ?? null]);
  },
  healthCounts: () =>
    env.db.query(
      `SELECT chain_id, count(*) FILTER (WHERE health_wad < $1::numeric)::text AS at_risk, count(*) FILTER (WHERE health_wad < $2::numeric)::text AS liquidatable
         FROM indexer_loans WHERE state = 'active' AND health_wad < $1::numeric AND chain_id = $3 GROUP BY chain_id`,
      [LOAN_AT_RISK_HEALTH_WAD.toString(), WAD.toString(), CHAIN],
    ),
};

const byToken = (rows: { token: string }[]) => [...rows].sort((a, b) => a.token.localeCompare(b.token));
const day = (offsetDays: number) => new Date((T0 + offsetDays * 86_400) * 1000).toISOString().slice(0, 10);
const WINDOWS: [string, string][] = [
  [day(0), day(0)],
  [day(1), day(1)],
  [day(0), day(2)],
  [day(1), day(6)],
  [day(-30), day(30)],
  [day(20), day(25)],
];

/** Every summary answer from the read models equals the oracle's, for every pair, window and series. */
async function expectOracle(): Promise<number> {
  let compared = 0;
  for (const pair of PAIRS)
    for (const [from, to] of WINDOWS) {
      expect(await clob.uniqueTraders(env.db, CHAIN, pair, from, to)).toEqual({ count: await oracle.uniqueTraders(pair, from, to), estimated: false });
      for (const optionId of [undefined, ...SERIES, '99']) {
        expect([await clob.windowTotals(env.db, CHAIN, pair, from, to, optionId)]).toEqual(await oracle.windowTotals(pair, from, to, optionId));
        expect(await clob.days(env.db, CHAIN, pair, from, to, optionId)).toEqual(await oracle.days(pair, from, to, optionId));
        compared += 1;
      }
    }
  const byLevel = (rows: { pair: string; option_id: string; is_buy: boolean; price: string }[]) =>
    [...rows].sort((a, b) =>
      `${a.pair}|${a.option_id}|${a.is_buy}|${a.price.padStart(8)}`.localeCompare(`${b.pair}|${b.option_id}|${b.is_buy}|${b.price.padStart(8)}`),
    );
  for (const depth of [1, 3, 50])
    for (const optionId of [undefined, SERIES[0]])
      expect(byLevel(await clob.levels(env.db, CHAIN, PAIRS, depth, optionId))).toEqual(byLevel(await oracle.levels(PAIRS, depth, optionId)));
  expect(byToken(await loans.debtTotals(CHAIN))).toEqual(byToken(await oracle.debtTotals()));
  expect(byToken(await loans.collateralTotals(CHAIN))).toEqual(byToken(await oracle.collateralTotals()));
  expect(await loans.healthCounts(CHAIN)).toEqual(await oracle.healthCounts());
  // Every day's trader sketch is the one built from scratch from its trader-days, and only days with traders have one.
  const sketches = await env.db.query(`SELECT pair, day, registers FROM indexer_clob_trader_sketch WHERE chain_id = $1 ORDER BY pair, day`, [CHAIN]);
  expect(sketches).toEqual(
    await env.db.query(
      `SELECT pair, day, indexer_trader_sketch_of(chain_id, pair, day) AS registers
         FROM (SELECT DISTINCT chain_id, pair, day FROM indexer_clob_traders WHERE chain_id = $1) d ORDER BY pair, day`,
      [CHAIN],
    ),
  );
  return compared;
}

beforeAll(async () => {
  env = await createTestEnv();
  await new NetworksService(env.db).upsertNetwork({
    chain_id: CHAIN,
    name: 'read models',
    rpc_urls: ['http://127.0.0.1:9'],
    contracts: {},
    enabled: false,
    confirmations: 0,
    tokens: [],
  });
  clob = new ClobExploreRepository(env.db);
  loans = new LoanRepository(env.db);
}, 60_000);

afterAll(async () => {
  await env?.close();
});

describe('summary read models against the old queries', () => {
  it('the lines the health counts are kept for are the ones the service uses', () => {
    expect(AT_RISK_WAD).toBe(LOAN_AT_RISK_HEALTH_WAD.toString());
    expect(LIQUIDATABLE_WAD).toBe(WAD.toString());
  });

  it('agree after every batch of a growing history, and after reorg rollbacks of several depths', async () => {
    for (let block = 1; block <= 24; block++) await writeBlock(block);
    const before = await expectOracle();
    expect(before).toBeGreaterThan(0);
    // The history holds what the comparisons need: fills on several days, at-risk and repaid loans.
    const [{ days }] = await env.db.query(`SELECT count(DISTINCT day)::int AS days FROM indexer_clob_pair_daily WHERE chain_id = $1`, [CHAIN]);
    expect(days).toBeGreaterThan(3);
    const [{ repaid, risky }] = await env.db.query(
      `SELECT count(*) FILTER (WHERE state = 'repaid')::int AS repaid, count(*) FILTER (WHERE state = 'active' AND health_wad < $2::numeric)::int AS risky
         FROM indexer_loans WHERE chain_id = $1`,
      [CHAIN, AT_RISK_WAD],
    );
    expect(repaid).toBeGreaterThan(0);
    expect(risky).toBeGreaterThan(0);
    const [{ levels }] = await env.db.query(`SELECT count(*) FILTER (WHERE orders > 1)::int AS levels FROM indexer_clob_levels WHERE chain_id = $1`, [CHAIN]);
    expect(levels).toBeGreaterThan(0);

    // A shallow reorg (the last block), a deep one (across days), then new blocks on the new branch.
    for (const at of [23, 14]) {
      await env.db.transaction((m) => rollbackDerived(m, CHAIN, at));
      await expectOracle();
    }
    for (let block = 15; block <= 20; block++) await writeBlock(block);
    await expectOracle();

    // Everything rolled back: the read models are empty, as the oracle's queries are.
    await env.db.transaction((m) => rollbackDerived(m, CHAIN, 0));
    await expectOracle();
    for (const t of ['indexer_clob_pair_daily', 'indexer_clob_trader_sketch', 'indexer_clob_levels', 'indexer_loan_token_totals', 'indexer_loan_health_counts'])
      expect(await env.db.query(`SELECT * FROM ${t} WHERE chain_id = $1`, [CHAIN])).toEqual([]);
  }, 120_000);
});
