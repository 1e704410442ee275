import type { Express } from 'express';
import { NetworksService } from '../../../shared/networks';
import { PG_INT4_MAX, PG_INT8_SAFE_MAX, UINT256_MAX } from '../../../shared/platform/validation';
import { exploreCredentials } from '../../support/explore';
import { networkFile, randomAddress } from '../../support/fixtures';
import { buildApp, request } from '../../support/http';
import { createTestEnv, type TestEnv } from '../../support/test-env';
import { bearer } from '../../support/wallets';

/**
 * Every list route's cursor and every `chain_id` filter bounded to its column: a value the
 * column cannot hold is a 400 naming the field (before: the query reached Postgres and failed,
 * a 500), and the largest value it can hold is answered. Both stream mints take `chain_id` the
 * same way, in the query or the body. Real Postgres and Redis; the rows are what the indexer
 * would have written.
 */
const PAIR = randomAddress();
const LOAN = '31337-7';
const HASH = `0x${'ab'.repeat(32)}`;

let env: TestEnv;
let app: Express;
let who: Record<string, string>;

const cursor = (key: unknown) => `c1.${Buffer.from(JSON.stringify(key), 'utf8').toString('base64url')}`;
const orderCursor = (createdAt: string, id = '00000000-0000-4000-8000-000000000000') => Buffer.from(`${createdAt}|${id}`).toString('base64url');
const withQuery = (path: string, q: string) => `${path}${path.includes('?') ? '&' : '?'}${q}`;

/** A 400 whose `error` and `details` name `field`, and nothing else. */
function namesField(res: request.Response, field: string): void {
  expect({ status: res.status, code: res.body.code }).toEqual({ status: 400, code: 'validation_failed' });
  expect(res.body.error).toMatch(new RegExp(`\\b${field}: `));
  expect(res.body.details.map((d: { path: string }) => d.path)).toEqual([field]);
}

beforeAll(async () => {
  env = await createTestEnv({ EXPLORE_RATE_LIMIT: '100000', EXPLORE_RATE_LIMIT_PER_IP: '100000' });
  const built = buildApp(env);
  app = built.app;
  await new NetworksService(env.db).upsertNetwork(networkFile(31337));
  await env.db.query(
    `INSERT INTO indexer_pairs (chain_id, address, factory, token0, token1, premium_token, created_block, created_block_hash, created_log_index, tx_hash)
     VALUES (31337, $1, $2, $2, $2, $2, 1, $3, 0, $3)`,
    [PAIR, randomAddress(), HASH],
  );
  const a = randomAddress();
  await env.db.query(
    `INSERT INTO indexer_loans (chain_id, loan_id, market, borrower, lender, collateral_token, collateral_amount, debt_token, principal,
       principal_outstanding, rate_bps, threshold_bps, maturity, state, health_wad, opened_block, opened_block_hash, opened_log_index, opened_at,
       tx_hash, last_block, last_log_index)
     VALUES (31337, 7, $1, $1, $1, $1, 1, $1, 1, 1, 500, 8000, 2000000000, 'active', 1000000000000000000, 1, $2, 0, 1700000000, $2, 1, 0)`,
    [a, HASH],
  );
  who = bearer((await exploreCredentials(app, built.ctx)).keyedDelegate);
}, 60_000);

afterAll(async () => {
  await env?.close();
});

const get = (path: string) => request(app).get(path).set(who);

/** The list routes paged by the position of an event on chain: (block number bigint, log index integer). */
const POSITION_LISTS = [
  `/api/clob/${PAIR}/activity`,
  `/api/clob/${PAIR}/fills`,
  '/api/explore/loans/recent?chain_id=31337',
  '/api/explore/loans/activity?chain_id=31337',
  '/api/explore/loans/events?chain_id=31337',
  '/api/margin/loans?chain_id=31337',
  `/api/margin/loans/${LOAN}/collateral`,
];

describe('cursors: every member bounded to its column, 400 naming cursor', () => {
  const outOfRange: [string, unknown][] = [
    ['a log index past integer', [1, PG_INT4_MAX + 1]],
    ['a log index of 3e9 (the 500 found)', [9e15, 3e9]],
    ['a block past bigint-safe', [2 ** 53, 0]],
    ['a block far past it', [1e300, 0]],
    ['a negative block', [-1, 0]],
    ['a negative log index', [0, -1]],
    ['a fraction', [1.5, 0]],
    ['strings for numbers', ['1', '2']],
    ['a member too many', [1, 2, 3]],
    ['no members', []],
  ];
  describe.each(POSITION_LISTS)('%s', (path) => {
    it.each(outOfRange)('%s', async (_what, key) => {
      namesField(await get(withQuery(path, `cursor=${cursor(key)}`)), 'cursor');
    });
    it('the largest position the columns hold is answered', async () => {
      expect((await get(withQuery(path, `cursor=${cursor([PG_INT8_SAFE_MAX, PG_INT4_MAX])}`))).status).toBe(200);
    });
    it('a huge string cursor', async () => {
      namesField(await get(withQuery(path, `cursor=c1.${'A'.repeat(4000)}`)), 'cursor');
    });
  });

  describe('GET /api/explore/loans/at-risk: (health, loan id uint256)', () => {
    const path = '/api/explore/loans/at-risk?chain_id=31337';
    it.each([
      ['a loan id past uint256', ['1', (UINT256_MAX + 1n).toString()]],
      ['a negative health', ['-1', '1']],
      ['numbers for strings', [1, 1]],
      ['a health with 79 digits', ['9'.repeat(79), '1']],
    ])('%s', async (_what, key) => {
      namesField(await get(`${path}&cursor=${cursor(key)}`), 'cursor');
    });
    it('the largest loan id is answered', async () => {
      expect((await get(`${path}&cursor=${cursor(['0', UINT256_MAX.toString()])}`)).status).toBe(200);
    });
  });

  describe('GET /api/orders: (created_at timestamptz, id uuid)', () => {
    it.each([
      ['a bare number as the time (JavaScript reads it as a date, Postgres does not)', orderCursor('1')],
      ['a negative year', orderCursor('-001000-01-01T00:00:00.000Z')],
      ['a year past any timestamptz', orderCursor('+275760-01-01T00:00:00.000Z')],
      ['year zero', orderCursor('0000-01-01T00:00:00.000Z')],
      ['a day that does not exist', orderCursor('2026-02-31T00:00:00.000Z')],
      ['before 1970', orderCursor('1960-01-01T00:00:00.000Z')],
      ['a time with an offset', orderCursor('2026-01-01T00:00:00.000+02:00')],
      ['an id that is no uuid', orderCursor('2026-01-01T00:00:00.000Z', 'x')],
      ['a member too many', Buffer.from('2026-01-01T00:00:00.000Z|00000000-0000-4000-8000-000000000000|x').toString('base64url')],
    ])('%s', async (_what, c) => {
      namesField(await request(app).get(`/api/orders?cursor=${c}`), 'cursor');
    });
    it('the latest time the cursor holds is answered', async () => {
      expect((await request(app).get(`/api/orders?cursor=${orderCursor('9999-12-31T23:59:59.999Z')}`)).status).toBe(200);
    });
  });
});

/** Every Explore, loan and order route with a `chain_id` filter. */
const CHAIN_FILTERED = [
  '/api/orders',
  `/api/explore/clobs/${PAIR}`,
  `/api/clob/${PAIR}/book`,
  '/api/clob/book',
  `/api/clob/${PAIR}/activity`,
  `/api/clob/${PAIR}/fills`,
  `/api/clob/${PAIR}/summary`,
  '/api/explore/loans/summary',
  '/api/explore/loans/at-risk',
  '/api/explore/loans/recent',
  '/api/explore/loans/activity',
  '/api/explore/loans/events',
  '/api/margin/loans',
];

describe('filters: chain_id bounded to the integer column, days and loan ids to theirs, 400 naming each', () => {
  describe.each(CHAIN_FILTERED)('%s', (path) => {
    it.each(['0', '-1', String(PG_INT4_MAX + 1), '9999999999', '99999999999999999999', '1e3', '031337', 'abc', ''])('chain_id=%s', async (v) => {
      namesField(await get(`${path}?chain_id=${v}`), 'chain_id');
    });
    it('the largest chain id is answered below 500', async () => {
      expect((await get(`${path}?chain_id=${PG_INT4_MAX}`)).status).toBeLessThan(500);
    });
  });

  it.each([
    ['to', '0001-01-01'],
    ['from', '0000-01-01'],
    ['to', '1969-12-31'],
  ])('summary window: %s=%s (before 1970, where the default window would reach year 0) is a 400 naming it', async (field, day) => {
    namesField(await get(`/api/clob/${PAIR}/summary?${field}=${day}`), field);
  });

  it('summary window: the earliest day, 1970-01-01, is answered', async () => {
    expect((await get(`/api/clob/${PAIR}/summary?to=1970-01-01`)).status).toBe(200);
  });

  it.each([`${PG_INT4_MAX + 1}-7`, `31337-${UINT256_MAX + 1n}`])('a loan id naming %s is a 400 naming id', async (id) => {
    namesField(await get(`/api/margin/loans/${id}`), 'id');
    namesField(await get(`/api/margin/loans/${id}/collateral`), 'id');
  });
});

describe('stream mints take chain_id the same way: in the query or the body', () => {
  const MINTS = [
    { name: 'CLOB', path: `/api/explore/clobs/${PAIR}/stream`, required: false },
    { name: 'loans', path: '/api/explore/loans/stream', required: true },
  ];
  const post = (path: string) => request(app).post(path).set(who);
  const minted = (res: request.Response) => {
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ stream_token: expect.any(String), topic: expect.stringMatching(/^explore_(clob|loan)_stream:/), expires_in: 3600 });
  };

  describe.each(MINTS)('$name', ({ path, required }) => {
    it('in the query, with no body', async () => minted(await post(`${path}?chain_id=31337`)));
    it('in the body', async () => minted(await post(path).send({ chain_id: 31337 })));
    it('in both, equal', async () => minted(await post(`${path}?chain_id=31337`).send({ chain_id: 31337 })));
    it('in both, different: 400 naming chain_id', async () => {
      const res = await post(`${path}?chain_id=31337`).send({ chain_id: 1 });
      namesField(res, 'chain_id');
      expect(res.body.error).toContain('given twice with different values');
    });
    it.each([0, PG_INT4_MAX + 1, -1, 1.5, '31337', null])('out of range or not a number in the body (%p): 400 naming chain_id', async (v) => {
      namesField(await post(path).send({ chain_id: v }), 'chain_id');
    });
    it.each(['0', String(PG_INT4_MAX + 1), '99999999999999999999', 'x'])('out of range in the query (%s): 400 naming chain_id', async (v) => {
      namesField(await post(`${path}?chain_id=${v}`), 'chain_id');
    });
    it('an unknown body field: 400 naming it', async () => {
      const res = await post(path).send({ chain_id: 31337, filter: 'x' });
      expect({ status: res.status, code: res.body.code }).toEqual({ status: 400, code: 'validation_failed' });
      expect(res.body.error).toBe('invalid request: (body): Unrecognized key: "filter"');
    });
    it(required ? 'neither: 400 naming chain_id' : 'neither: the chain the CLOB is indexed on', async () => {
      const res = await post(path);
      if (required) namesField(res, 'chain_id');
      else minted(res);
    });
  });
});
