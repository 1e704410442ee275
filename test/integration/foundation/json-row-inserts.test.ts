import { randomBytes, randomUUID } from 'node:crypto';
import { DutchRepository } from '../../../shared/dutch';
import { NetworksService } from '../../../shared/networks';
import { OrderRepository, type NewOrderRow } from '../../../shared/orders/order.repository';
import { QuoteRepository, type NewQuote } from '../../../shared/quotes/quote.repository';
import type { QuoteLegRow } from '../../../shared/quotes/quote.types';
import { networkFile, randomAddress } from '../../support/fixtures';
import { createTestEnv, type TestEnv } from '../../support/test-env';

/**
 * The creates' inserts send their rows as one jsonb parameter (shared/platform/db/json-rows.ts)
 * where they sent one array per column: what is stored must be what was given, to the byte, for
 * the values no create has sent yet too.
 */

const MAX_UINT256 = ((1n << 256n) - 1n).toString();
const MAX_UINT64 = ((1n << 64n) - 1n).toString();
/** Text an array literal had to escape or quote, and JSON has to escape: every one must come back as it went. */
const AWKWARD_TEXT = [
  '',
  'NULL',
  'null',
  ' padded ',
  '{1,2}',
  'a,b',
  '"double"',
  "it's",
  'back\\slash\\\\',
  '\\u0041 is not A',
  'line\nbreak\ttab\r',
  '\u0001\u001f\u007f',
  'é ñ 中文 עברית',
  '😀 \u{1F680}',
  '\u2028\u2029',
  '[]{}:,',
];

function quoteWith(text: string, i: number, directions: number[]): NewQuote {
  const legs: QuoteLegRow[] = directions.map((direction, idx) => ({
    idx,
    option_type: idx % 2 === 0 ? 0 : 1,
    structure: 1,
    direction: direction === 0 ? 0 : 1,
    strike_wad: idx === 0 ? MAX_UINT256 : '0',
    amount: idx === 0 ? '1' : MAX_UINT256,
    start_exercise_timestamp: idx === 0 ? 0 : -1,
    expiry_timestamp: Number.MAX_SAFE_INTEGER,
  }));
  return {
    row: {
      id: randomUUID(),
      chain_id: 31337,
      offer_format: 'package_only',
      polarity: 'a_is_buy',
      strategy: text,
      taker_address: `0x${text}` as `0x${string}`,
      referrer: `0x${i}${text}` as `0x${string}`,
      taker_salt: `0x${randomBytes(32).toString('hex')}`,
      taker_address_hash: `0x${randomBytes(32).toString('hex')}`,
      directions,
      pair_contract: randomAddress(),
      expiry_timestamp: Number.MAX_SAFE_INTEGER - i,
      stream_token_hash: `${text}#${randomBytes(16).toString('hex')}`,
      // a millisecond the old array literal and the JSON both carry
      expires_at: new Date(Date.UTC(2031, 0, 2, 3, 4, 5, 678 + i)),
    },
    legs,
  };
}

interface StoredQuote {
  id: string;
  chain_id: number;
  offer_format: string;
  polarity: string;
  strategy: string;
  taker_address: string;
  referrer: string;
  taker_salt: string;
  taker_address_hash: string;
  directions: string;
  pair_contract: string;
  expiry_timestamp: string;
  stream_token_hash: string;
  expires_at: string;
  legs: string[][];
}

/** Every column a quote's create writes, as Postgres prints it: nothing is compared after a JavaScript conversion. */
async function storedQuote(env: TestEnv, id: string): Promise<StoredQuote> {
  const [row] = (await env.db.query(
    `SELECT id::text, chain_id, offer_format, polarity, strategy, taker_address, referrer, taker_salt, taker_address_hash, directions::text,
       pair_contract, expiry_timestamp::text, stream_token_hash, to_char(expires_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS expires_at,
       (SELECT coalesce(json_agg(json_build_array(idx::text, option_type::text, structure::text, direction::text, strike_wad::text, amount::text,
          start_exercise_timestamp::text, expiry_timestamp::text) ORDER BY idx), '[]') FROM quote_legs WHERE quote_id = q.id) AS legs
     FROM quotes q WHERE id = $1`,
    [id],
  )) as StoredQuote[];
  return row;
}

/** What a quote's columns must read back as: its inputs, in Postgres's text forms. */
function expectedQuote(q: NewQuote): StoredQuote {
  const r = q.row;
  return {
    id: r.id,
    chain_id: r.chain_id,
    offer_format: r.offer_format,
    polarity: r.polarity,
    strategy: r.strategy,
    taker_address: r.taker_address,
    referrer: r.referrer,
    taker_salt: r.taker_salt,
    taker_address_hash: r.taker_address_hash,
    directions: `{${r.directions.join(',')}}`,
    pair_contract: r.pair_contract,
    expiry_timestamp: String(r.expiry_timestamp),
    stream_token_hash: r.stream_token_hash,
    expires_at: r.expires_at.toISOString(),
    legs: q.legs.map((l) =>
      [l.idx, l.option_type, l.structure, l.direction, l.strike_wad, l.amount, l.start_exercise_timestamp, l.expiry_timestamp].map(String),
    ),
  };
}

function orderWith(text: string, i: number, recorderIp: string | null): NewOrderRow {
  const owner = randomAddress();
  return {
    id: randomUUID(),
    chain_id: 31337,
    owner_address: owner,
    pair: `0x${text}` as `0x${string}`,
    premium_token: randomAddress(),
    nonce_prefix: i % 2 === 0 ? MAX_UINT64 : '0',
    nonce: MAX_UINT256,
    amount: i % 2 === 0 ? '1' : MAX_UINT256,
    intent_hash: `0x${randomBytes(32).toString('hex')}`,
    destination: { from: owner, to: randomAddress(), nonce: { prefix: Number.MAX_SAFE_INTEGER, nonce: MAX_UINT256 } },
    data: {
      options6909Contract: `0x${text}` as `0x${string}`,
      rewardLimits: { fillerRewardMaxPerMintedUnit: MAX_UINT256, fillerRewardMinPerMintedUnit: 0 },
      pairKey: { optionType: 1, startExecutionTimeStamp: 0, expiryTimestamp: Number.MAX_SAFE_INTEGER },
      decayPremium: { premiumStart: text, premiumEnd: -1, decayRateBpsPerSecond: 10_000 },
      decayStrike: { strikeStart: MAX_UINT256, strikeEnd: '0', decayRateBpsPerSecond: 0 },
      decayMinFill: { startMinFill: '1', decayRatePerSecond: MAX_UINT256 },
      buyOrSell: 0,
      intentStartTime: 0,
      intentExpiry: 2_000_000_000,
      orderOnExpiry: 1,
    } as unknown as NewOrderRow['data'],
    expires_at: new Date(Date.UTC(2031, 0, 2, 3, 4, 5, 1 + i)),
    recorded_by_owner: recorderIp === null,
    recorder_ip: recorderIp,
  };
}

/** Every column an order's create writes, as Postgres prints it, but its id and intent hash (unique: a twin has its own). */
async function storedOrder(env: TestEnv, id: string): Promise<Record<string, string | null>> {
  const [row] = (await env.db.query(
    `SELECT chain_id::text, owner_address, pair, premium_token, nonce_prefix::text, nonce::text, amount::text, destination::text, data::text,
       to_char(expires_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS expires_at, recorded_by_owner::text, recorder_ip
     FROM orders WHERE id = $1`,
    [id],
  )) as Record<string, string | null>[];
  return row;
}

describe('creates sent as one jsonb parameter store exactly what they were given', () => {
  let env: TestEnv;
  let quotes: QuoteRepository;
  let orders: OrderRepository;

  beforeAll(async () => {
    env = await createTestEnv();
    quotes = new QuoteRepository(env.db);
    orders = new OrderRepository(env.db);
    await new NetworksService(env.db).upsertNetwork(networkFile(31337));
  });
  afterAll(() => env.close());

  it('a batch of quotes with awkward text, uint256 strikes and amounts, unsafe-edge bigints and empty directions reads back as given', async () => {
    const batch = AWKWARD_TEXT.map((t, i) => quoteWith(t, i, [[], [1], [0, 1], [1, 0, 1, 0]][i % 4]));
    const created = await quotes.insertQuotes(batch);
    expect(created).toHaveLength(batch.length);
    for (const q of batch) expect(await storedQuote(env, q.row.id)).toEqual(expectedQuote(q));
  });

  it('a quote inserted alone (a batch of one, or inside the idempotency transaction) reads back as given', async () => {
    for (const [i, t] of AWKWARD_TEXT.entries()) {
      const q = quoteWith(t, i, [1, 0, 1]);
      await env.db.transaction((m) => quotes.insertQuote(m, q.row, q.legs));
      expect(await storedQuote(env, q.row.id)).toEqual(expectedQuote(q));
    }
  });

  it("a Dutch quote's legs read back as given", async () => {
    const q = quoteWith('dutch "legs" \\ é', 0, [1, 0, 1]);
    await new DutchRepository(env.db).insert(
      null,
      {
        ...q.row,
        offer_format: 'dutch_only',
        dutch_request: { note: AWKWARD_TEXT.join('|') },
        dutch_request_digest: `0x${randomBytes(32).toString('hex')}`,
        taker_signature: '0x00',
        taker_nonce: MAX_UINT256,
        compete_ends_at: new Date(),
        exclusive_ms: 2000,
      },
      q.legs,
    );
    expect((await storedQuote(env, q.row.id)).legs).toEqual(expectedQuote(q).legs);
    const [d] = (await env.db.query(`SELECT dutch_request->>'note' AS note, taker_nonce::text FROM quotes WHERE id = $1`, [q.row.id])) as {
      note: string;
      taker_nonce: string;
    }[];
    expect(d).toEqual({ note: AWKWARD_TEXT.join('|'), taker_nonce: MAX_UINT256 });
  });

  it('text JSON cannot carry to Postgres fails its whole batch and stores none of it: NUL, as the array literals did; a lone surrogate, which they stored as U+FFFD', async () => {
    for (const bad of ['nul\u0000inside', 'lone \ud800 surrogate']) {
      const batch = [quoteWith('fine', 0, [1]), quoteWith(bad, 1, [1])];
      await expect(quotes.insertQuotes(batch)).rejects.toThrow(/Unicode escape sequence|invalid input syntax for type json/);
      for (const q of batch) expect(await quotes.findQuote(q.row.id)).toBeNull();
    }
  });

  it('a batch of orders (uint64 prefixes, uint256 nonces and amounts, awkward text, nulls, nested JSON) stores what the one-row insert stores', async () => {
    const batch = AWKWARD_TEXT.map((t, i) => orderWith(t, i, i % 3 === 0 ? null : `ip:${t}`));
    const created = await orders.insertOrders(batch);
    expect(created.every((d) => d instanceof Date)).toBe(true);
    for (const o of batch) {
      // the twin goes through insertOrder's scalar parameters, the path this change left alone
      const twin = { ...o, id: randomUUID(), intent_hash: `0x${randomBytes(32).toString('hex')}` as `0x${string}` };
      expect(await orders.insertOrder(twin)).toBeInstanceOf(Date);
      const stored = await storedOrder(env, o.id);
      expect(stored).toEqual(await storedOrder(env, twin.id));
      expect(stored).toMatchObject({
        pair: o.pair,
        nonce_prefix: o.nonce_prefix,
        nonce: o.nonce,
        amount: o.amount,
        expires_at: o.expires_at.toISOString(),
        recorded_by_owner: String(o.recorded_by_owner),
        recorder_ip: o.recorder_ip,
      });
      const [json] = (await env.db.query(`SELECT destination, data FROM orders WHERE id = $1`, [o.id])) as { destination: unknown; data: unknown }[];
      expect(json).toEqual({ destination: o.destination, data: o.data });
    }
  });

  it('of one intent twice in a batch of orders, the first given is recorded', async () => {
    const first = orderWith('first', 0, null);
    const second = { ...orderWith('second', 1, null), intent_hash: first.intent_hash };
    const others = [orderWith('a', 2, 'ip'), orderWith('b', 3, null)];
    const created = await orders.insertOrders([others[0], first, second, others[1]]);
    expect(created.map((d) => d instanceof Date)).toEqual([true, true, false, true]);
    expect((await orders.findOrder(first.id))?.order.pair).toBe(first.pair);
    expect(await orders.findOrder(second.id)).toBeNull();
  });
});
