import type { Hex } from 'viem';
import { Client } from 'pg';
import { startChangeset, writeDerived, type ProjectedRow } from '../../../indexer/store/derived-tables';
import { ClobExploreService } from '../../../shared/explore/clob/clob-explore.service';
import { NetworksService } from '../../../shared/networks';
import { encodeOptionId } from '../../../shared/protocol';
import { ClobExploreInSteps } from '../../support/explore-clob-steps';
import { fakeHash } from '../../support/fixtures';
import { fillRows, transferRows } from '../../support/indexed-rows';
import { createTestEnv, type TestEnv } from '../../support/test-env';

/**
 * The overview, the summary, the chain book and the book with orders are each read in one
 * statement (issue #41). Before, each read the pair, then its parts one after another inside a
 * REPEATABLE READ transaction; that path is kept in test/support/explore-clob-steps.ts. Over a
 * history with the edges the answers branch on (a pair with no series, a pair with no fill in
 * the windows, a series with one side only, one never filled, a pair on two networks, a network
 * with no head yet, an unknown address), both must give the same answer byte for byte, or the
 * same error; and the new one must send Postgres exactly one statement.
 */
const CHAIN = 31337;
const CHAIN2 = 31338;
const DAY = 86_400;
const NOW = Math.floor(Date.now() / 1000);
const TODAY = NOW - (NOW % DAY);
const addr = (n: number) => `0x${n.toString(16).padStart(40, '0')}` as Hex;
const ZERO = addr(0);
const P = {
  busy: '0x3000000000000000000000000000000000000011' as Hex,
  empty: '0x3000000000000000000000000000000000000012' as Hex,
  old: '0x3000000000000000000000000000000000000013' as Hex,
  twice: '0x3000000000000000000000000000000000000014' as Hex,
  unknown: '0x3000000000000000000000000000000000000015' as Hex,
};
const TOKENS = [
  '0x7000000000000000000000000000000000000001',
  '0x7000000000000000000000000000000000000002',
  '0x7000000000000000000000000000000000000003',
] as Hex[];
const W = Array.from({ length: 6 }, (_, i) => addr(0xc0 + i));
const series = (type: 0 | 1, strike: number, expiry: number) =>
  encodeOptionId({ option_type: type, strike_wad: BigInt(strike) * 10n ** 18n, expiry_timestamp: expiry, start_exercise_timestamp: 0 }).toString();
/** Both sides; bids only; asks only, never filled; expired, filled long ago only. */
const S = {
  both: series(0, 3000, NOW + 30 * DAY),
  bids: series(1, 2000, NOW + 7 * DAY),
  asks: series(0, 2500, NOW + 60 * DAY),
  expired: series(1, 1500, NOW - DAY),
};

/** Where a row sits in the chain. */
type Pos = { block_number: number; block_hash: Hex; block_timestamp: number; log_index: number; tx_hash: Hex };

let env: TestEnv;
let now1: ClobExploreService;
let steps: ClobExploreInSteps;
let block = 0;
let order = 0;

/** One batch of rows in a new block at `timestamp` on `chainId`, the chain's head moved to it. */
async function write(chainId: number, timestamp: number, rows: (pos: () => Pos) => ProjectedRow[], head = true) {
  block++;
  const c = startChangeset();
  let log = 0;
  const b = block;
  const pos = () => ({ block_number: b, block_hash: fakeHash(b, 1), block_timestamp: timestamp, log_index: log, tx_hash: fakeHash(b * 100 + log++, 2) });
  for (const r of rows(pos)) c.add(r);
  await env.db.transaction(async (m) => {
    await writeDerived(m, chainId, c.done());
    if (head)
      await m.query(
        `INSERT INTO indexer_cursors (chain_id, contract_set, block_number, block_hash, block_timestamp) VALUES ($1, 'steps', $2, $3, $4)
         ON CONFLICT (chain_id, contract_set) DO UPDATE SET block_number = EXCLUDED.block_number, block_hash = EXCLUDED.block_hash, block_timestamp = EXCLUDED.block_timestamp`,
        [chainId, b, fakeHash(b, 1), timestamp],
      );
  });
}

const pairRow = (pos: () => Pos, address: Hex, token0: Hex, premium: Hex): ProjectedRow => {
  const p = pos();
  return {
    table: 'indexer_pairs',
    row: {
      address,
      factory: ZERO,
      token0,
      token1: TOKENS[1],
      premium_token: premium,
      created_block: p.block_number,
      created_block_hash: p.block_hash,
      created_log_index: p.log_index,
      tx_hash: p.tx_hash,
    },
  };
};

/** An open order resting in the book, and its series' count. */
function orderRows(p: Pos, pair: Hex, option_id: string, is_buy: boolean, price: number, amount: number, owner: Hex): ProjectedRow[] {
  return [
    {
      table: 'indexer_orders',
      row: {
        placed: {
          pair,
          order_id: String(++order),
          owner,
          option_id,
          is_buy,
          price: String(price),
          amount: String(amount),
          remaining: String(amount),
          state: 'open',
          placed_block: p.block_number,
          placed_block_hash: p.block_hash,
          placed_log_index: p.log_index,
          tx_hash: p.tx_hash,
          last_block: p.block_number,
          last_log_index: p.log_index,
        },
      },
    },
    { table: 'indexer_clob_series', row: { pair, option_id, block: p.block_number, oi_delta: 0n, placed: 1, transfer: 0 } },
  ];
}

const fill = (p: Pos, pair: Hex, option_id: string, price: number, amount: number, maker: Hex, taker: Hex) =>
  fillRows(p, { pair, option_id, order_id: String(++order), price: BigInt(price), amount: BigInt(amount), maker, taker });

const mint = (p: Pos, pair: Hex, option_id: string, amount: number, to: Hex): ProjectedRow[] => [
  ...transferRows(p, { pair, option_id, amount: String(amount), sender: ZERO, receiver: to }),
  { table: 'indexer_clob_series', row: { pair, option_id, block: p.block_number, oi_delta: BigInt(amount), placed: 0, transfer: 1 } },
];

/** The answer or the error, as bytes. */
async function outcome(read: () => Promise<unknown>): Promise<string> {
  try {
    return JSON.stringify({ answer: await read() });
  } catch (err) {
    const e = err as Error & { code?: string; details?: unknown };
    return JSON.stringify({ error: e.constructor.name, message: e.message, code: e.code, details: e.details });
  }
}

/** Statements the pg clients of this process send while `read` runs. */
async function statements(read: () => Promise<unknown>): Promise<number> {
  const spy = jest.spyOn(Client.prototype, 'query');
  try {
    await read().catch(() => undefined);
    return spy.mock.calls.length;
  } finally {
    spy.mockRestore();
  }
}

/** Both answers alike, the new one read in `sent` statements (one; none when the query is refused before any read). */
async function expectSame(name: string, now: () => Promise<unknown>, before: () => Promise<unknown>, sent = 1): Promise<string> {
  const [a, b] = [await outcome(now), await outcome(before)];
  expect({ name, answer: a }).toEqual({ name, answer: b });
  expect({ name, statements: await statements(now) }).toEqual({ name, statements: sent });
  return a;
}

beforeAll(async () => {
  env = await createTestEnv();
  for (const chain_id of [CHAIN, CHAIN2])
    await new NetworksService(env.db).upsertNetwork({
      chain_id,
      name: `steps ${chain_id}`,
      rpc_urls: ['http://127.0.0.1:9'],
      contracts: {},
      enabled: false,
      confirmations: 0,
      tokens: [],
    });
  now1 = new ClobExploreService(env.db);
  steps = new ClobExploreInSteps(env.db);

  // 100 days ago: the pairs, and the only fills of `old` and of the expired series.
  await write(CHAIN, TODAY - 100 * DAY, (pos) => [
    pairRow(pos, P.busy, TOKENS[0], TOKENS[2]),
    pairRow(pos, P.empty, TOKENS[1], TOKENS[2]),
    pairRow(pos, P.old, TOKENS[0], TOKENS[1]),
    pairRow(pos, P.twice, TOKENS[2], TOKENS[0]),
    ...mint(pos(), P.old, S.both, 4, W[0]),
    ...fill(pos(), P.old, S.both, 7, 3, W[0], W[1]),
    ...mint(pos(), P.busy, S.expired, 2, W[2]),
    ...fill(pos(), P.busy, S.expired, 9, 2, W[2], W[3]),
  ]);
  // `twice` on a second network too, which has no head yet.
  await write(CHAIN2, TODAY - 99 * DAY, (pos) => [pairRow(pos, P.twice, TOKENS[2], TOKENS[0]), ...mint(pos(), P.twice, S.bids, 5, W[1])], false);
  // 45 days ago (in 60 days, not in 30), 20 and 3 days ago, yesterday's last second, today.
  for (const [t, k] of [
    [TODAY - 45 * DAY + 3600, 0],
    [TODAY - 20 * DAY, 1],
    [TODAY - 3 * DAY + 7200, 2],
    [TODAY - 1, 3],
    [Math.max(TODAY, NOW - 60), 4],
  ] as const)
    await write(CHAIN, t, (pos) => [
      ...mint(pos(), P.busy, S.both, 3 + k, W[k % W.length]),
      ...orderRows(pos(), P.busy, S.both, true, 10 + (k % 3), 4 + k, W[k]),
      ...orderRows(pos(), P.busy, S.both, true, 10 + (k % 3), 2, W[k + 1]),
      ...orderRows(pos(), P.busy, S.both, false, 20 + k, 3, W[k]),
      ...orderRows(pos(), P.busy, S.bids, true, 5 + (k % 2), 6, W[(k + 2) % W.length]),
      ...(k >= 2 ? orderRows(pos(), P.busy, S.asks, false, 30 - k, 1, W[k]) : []),
      ...fill(pos(), P.busy, S.both, 12 + k, 1 + k, W[k], W[(k + 1) % W.length]),
      ...(k % 2 === 0 ? fill(pos(), P.busy, S.bids, 6, 2, W[(k + 3) % W.length], W[k]) : []),
      ...fill(pos(), P.twice, S.both, 3, 1, W[0], W[5]),
    ]);
}, 60_000);

afterAll(async () => {
  await env?.close();
});

const day = (offset: number) => new Date((TODAY + offset * DAY) * 1000).toISOString().slice(0, 10);

describe('one statement per answer, the same answers as the reads in steps', () => {
  it('overview', async () => {
    const busy = JSON.parse(
      await expectSame(
        'busy',
        () => now1.overview(P.busy, CHAIN),
        () => steps.overview(P.busy, CHAIN),
      ),
    );
    // The history holds the edges: a series with one side, one never filled, one expired, fills in both windows.
    expect(busy.answer.series).toHaveLength(4);
    expect(busy.answer.windows.map((w: { fills: number }) => w.fills)).toEqual([expect.any(Number), expect.any(Number)]);
    expect(busy.answer.windows[1].fills).toBeGreaterThan(busy.answer.windows[0].fills);
    expect(busy.answer.windows[1].unique_traders).toBeGreaterThan(1);
    await expectSame(
      'no chain given',
      () => now1.overview(P.busy),
      () => steps.overview(P.busy),
    );
    await expectSame(
      'empty pair',
      () => now1.overview(P.empty, CHAIN),
      () => steps.overview(P.empty, CHAIN),
    );
    const old = JSON.parse(
      await expectSame(
        'no fills in the windows',
        () => now1.overview(P.old),
        () => steps.overview(P.old),
      ),
    );
    expect(old.answer.last_fill).not.toBeNull();
    expect(old.answer.windows[1].fills).toBe(0);
    await expectSame(
      'on two networks',
      () => now1.overview(P.twice),
      () => steps.overview(P.twice),
    );
    await expectSame(
      'the second network, no head',
      () => now1.overview(P.twice, CHAIN2),
      () => steps.overview(P.twice, CHAIN2),
    );
    await expectSame(
      'unknown',
      () => now1.overview(P.unknown),
      () => steps.overview(P.unknown),
    );
    await expectSame(
      'on another chain',
      () => now1.overview(P.old, CHAIN2),
      () => steps.overview(P.old, CHAIN2),
    );
  });

  it('summary', async () => {
    const cases: [string, Hex, { chain_id?: number; option_id?: string; from?: string; to?: string }][] = [
      ['30 days', P.busy, {}],
      ['60 days', P.busy, { from: day(-59), to: day(0) }],
      ['one day', P.busy, { from: day(-1), to: day(-1) }],
      ['one day, no fills', P.busy, { from: day(-2), to: day(-2) }],
      ['a series', P.busy, { chain_id: CHAIN, option_id: S.both, from: day(-59), to: day(0) }],
      ['a series with one side', P.busy, { option_id: S.bids }],
      ['a series never filled', P.busy, { option_id: S.asks }],
      ['a series not listed', P.busy, { option_id: '12345' }],
      ['a window before any fill', P.busy, { from: day(-300), to: day(-200) }],
      ['empty pair', P.empty, {}],
      ['no fills in the window', P.old, {}],
      ['fills long ago', P.old, { from: day(-120), to: day(-1) }],
      ['on two networks', P.twice, {}],
      ['the second network', P.twice, { chain_id: CHAIN2 }],
      ['unknown', P.unknown, {}],
      ['from after to', P.busy, { from: day(0), to: day(-1) }],
    ];
    const answers = [];
    for (const [name, pair, q] of cases)
      answers.push(
        JSON.parse(
          await expectSame(
            name,
            () => now1.summary(pair, q),
            () => steps.summary(pair, q),
            name === 'from after to' ? 0 : 1,
          ),
        ),
      );
    expect(answers[1].answer.totals.fills).toBeGreaterThan(answers[0].answer.totals.fills);
    expect(answers[2].answer.days).toHaveLength(1);
  });

  it('chain book', async () => {
    const cases: [string, Parameters<ClobExploreService['chainBook']>[0]][] = [
      ['every CLOB', { chain_id: CHAIN, depth: 20 }],
      ['depth 1', { chain_id: CHAIN, depth: 1 }],
      ['a token', { chain_id: CHAIN, token: TOKENS[0], depth: 2 }],
      ['a premium token', { chain_id: CHAIN, premium_token: TOKENS[1], depth: 20 }],
      ['no match', { chain_id: CHAIN, token: W[0], depth: 20 }],
      ['puts', { chain_id: CHAIN, option_type: 'put', depth: 3 }],
      ['an expiry', { chain_id: CHAIN, expiry_timestamp: NOW + 60 * DAY, depth: 3 }],
      ['the second network, no head', { chain_id: CHAIN2, depth: 20 }],
    ];
    for (const [name, q] of cases)
      await expectSame(
        name,
        () => now1.chainBook(q),
        () => steps.chainBook(q),
      );
  });

  it('book, with orders and without', async () => {
    for (const include_orders of [true, false]) {
      const cases: [string, Hex, { chain_id?: number; option_id?: string; depth: number }][] = [
        ['every series', P.busy, { depth: 20 }],
        ['depth 1', P.busy, { chain_id: CHAIN, depth: 1 }],
        ['depth 2', P.busy, { depth: 2 }],
        ['a series', P.busy, { option_id: S.both, depth: 2 }],
        ['a series with bids only', P.busy, { option_id: S.bids, depth: 20 }],
        ['a series not listed', P.busy, { option_id: '12345', depth: 20 }],
        ['empty pair', P.empty, { depth: 20 }],
        ['on two networks', P.twice, { depth: 20 }],
        ['the second network', P.twice, { chain_id: CHAIN2, depth: 20 }],
        ['unknown', P.unknown, { depth: 20 }],
      ];
      for (const [name, pair, q] of cases)
        await expectSame(
          `${name}, orders ${include_orders}`,
          () => now1.book(pair, { ...q, include_orders }),
          () => steps.book(pair, { ...q, include_orders }),
        );
    }
    const { series } = await now1.book(P.busy, { depth: 20, include_orders: true });
    // Levels with several orders, best first and oldest first within a price.
    expect(series.some((s) => s.bids.some((l) => (l.order_list?.length ?? 0) > 1))).toBe(true);
  });
});
