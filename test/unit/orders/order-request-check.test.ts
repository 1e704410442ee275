import fc from 'fast-check';
import { AppError, ValidationError } from '../../../shared/platform/errors';
import { errorBody } from '../../../shared/platform/http/error-handler';
import { parseOrderRequest, parseOrderRequestBySchema, type OrderRequest } from '../../../shared/orders/order-request';
import { acceptedOrderBody } from '../../../shared/orders/order-request-check';
import { parsedBodies } from '../../fuzz/http-values';

/**
 * The order create body's fast check (shared/orders/order-request-check.ts) against its schema
 * (shared/orders/order-request.ts), on the HTTP fuzz's corpus (test/fuzz/http-values.ts: valid
 * bodies mutated field by field, junk, JSON text broken on the wire) drawn from the run's seed,
 * and on every field of the body spoiled one at a time: the check accepts exactly the bodies the
 * schema accepts, with the same order, and a refused body gets the schema's 400, byte for byte.
 */

const NOW = 1_800_000_000;
const DAY = 86_400;
const HORIZON = 365 * DAY;
const LATEST = NOW + HORIZON;
const RUNS = 5_000;
const OWNER = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const PAIR = '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512';
const UINT256_MAX = ((1n << 256n) - 1n).toString();
const UINT144_MAX = ((1n << 144n) - 1n).toString();

/** A valid order body as a client sends it, with parts replaced. */
function order(over: { top?: Record<string, unknown>; destination?: Record<string, unknown>; data?: Record<string, unknown> } = {}) {
  const expiry = NOW + 30 * DAY;
  return {
    chain_id: 31337,
    amount: '1000000000000000000',
    destination: { from: OWNER, to: PAIR, nonce: { prefix: 0, nonce: '1' }, ...over.destination },
    data: {
      options6909Contract: PAIR,
      rewardLimits: { fillerRewardMaxPerMintedUnit: '1000', fillerRewardMinPerMintedUnit: '0' },
      pairKey: { optionType: 0, startExecutionTimeStamp: 0, expiryTimestamp: expiry },
      decayPremium: { premiumStart: '125000000', premiumEnd: '100000000', decayRateBpsPerSecond: 1 },
      decayStrike: { strikeStart: '3000000000000000000000', strikeEnd: '3000000000000000000000', decayRateBpsPerSecond: 0 },
      decayMinFill: { startMinFill: '0', decayRatePerSecond: '0' },
      buyOrSell: 0,
      intentStartTime: NOW - DAY,
      intentExpiry: expiry - DAY,
      orderOnExpiry: 0,
      ...over.data,
    },
    ...over.top,
  };
}

/** Valid bodies in the forms a client may send: the mutations of each walk both sides of every field's edge. */
const TEMPLATES: Record<string, unknown>[] = [
  // The API's example, as bench:orders sends it.
  order(),
  // Integers as JSON numbers, timestamps as strings, lower-case addresses, a European sell resting until expiry.
  order({
    top: { chain_id: 1, amount: 5 },
    destination: { from: OWNER.toLowerCase(), to: PAIR.toLowerCase(), nonce: { prefix: 7, nonce: 0 } },
    data: {
      options6909Contract: PAIR.toLowerCase(),
      rewardLimits: { fillerRewardMaxPerMintedUnit: 10, fillerRewardMinPerMintedUnit: 10 },
      pairKey: { optionType: 1, startExecutionTimeStamp: String(NOW + 10 * DAY), expiryTimestamp: String(NOW + 10 * DAY) },
      decayPremium: { premiumStart: 0, premiumEnd: '0', decayRateBpsPerSecond: 10_000 },
      decayMinFill: { startMinFill: 5, decayRatePerSecond: 3 },
      buyOrSell: 1,
      intentStartTime: '0',
      intentExpiry: String(NOW + 10 * DAY),
      orderOnExpiry: 1,
    },
  }),
  // Every edge at once: the largest chain, prefix and integers, the option expiring at the horizon, the intent ending one second from now.
  order({
    top: { chain_id: 2_147_483_647, amount: UINT256_MAX },
    destination: { from: PAIR.toUpperCase().replace('0X', '0x'), nonce: { prefix: Number.MAX_SAFE_INTEGER, nonce: UINT256_MAX } },
    data: {
      rewardLimits: { fillerRewardMaxPerMintedUnit: UINT256_MAX, fillerRewardMinPerMintedUnit: String(Number.MAX_SAFE_INTEGER) },
      pairKey: { optionType: 0, startExecutionTimeStamp: LATEST, expiryTimestamp: LATEST },
      decayPremium: { premiumStart: Number.MAX_SAFE_INTEGER, premiumEnd: UINT256_MAX, decayRateBpsPerSecond: 0 },
      decayStrike: { strikeStart: '1', strikeEnd: UINT144_MAX, decayRateBpsPerSecond: 10_000 },
      decayMinFill: { startMinFill: UINT256_MAX, decayRatePerSecond: UINT256_MAX },
      intentStartTime: NOW,
      intentExpiry: NOW + 1,
    },
  }),
];

type Outcome = { ok: true; value: OrderRequest } | { ok: false; body: string };

/** What a create would answer for `body`: the parsed order, or its 400 body as sent. */
function outcome(parse: () => OrderRequest): Outcome {
  try {
    return { ok: true, value: parse() };
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return { ok: false, body: JSON.stringify(errorBody(err, 'request-id')) };
  }
}

/** Both sides on one body: the same verdict, the same order, and the create path's answer the schema's, a 400 byte for byte. */
function expectSameAnswer(body: unknown): Outcome {
  const bySchema = outcome(() => parseOrderRequestBySchema(body, NOW, HORIZON));
  const fast = acceptedOrderBody(body, NOW, HORIZON);
  if (bySchema.ok) expect(fast).toBeDefined();
  else expect(fast).toBeUndefined();
  expect(outcome(() => parseOrderRequest(body, NOW, HORIZON))).toEqual(bySchema);
  return bySchema;
}

/** Bodies as Express hands them over: the fuzz's JSON texts that parse. */
const bodies = parsedBodies(TEMPLATES);

/** Every path of the template to an object or a value, parents before children. */
function paths(v: unknown, at: string[] = []): string[][] {
  if (typeof v !== 'object' || v === null) return [at];
  return [at, ...Object.entries(v).flatMap(([k, child]) => paths(child, [...at, k]))];
}

/** A deep copy of `body` with the value at `path` replaced (or removed, for `undefined`). */
function withValue(body: unknown, path: string[], value: unknown): unknown {
  const copy = JSON.parse(JSON.stringify(body)) as Record<string, unknown>;
  if (path.length === 0) return value;
  let at = copy;
  for (const k of path.slice(0, -1)) at = at[k] as Record<string, unknown>;
  if (value === undefined) delete at[path[path.length - 1]];
  else at[path[path.length - 1]] = value;
  return copy;
}

/** The JSON text of `body` with `"key": value` added to the object at `path`, parsed as Express would (so `__proto__` is an own key). */
function withKeyInText(body: unknown, path: string[], key: string, value: unknown): unknown {
  const marker = '"zz-marker-zz"';
  const text = JSON.stringify(withValue(body, [...path, 'zz-marker-zz'], 0));
  return JSON.parse(text.replace(`${marker}:0`, `${JSON.stringify(key)}:${JSON.stringify(value)}`));
}

/** Values of every wrong kind, and numbers and strings past every width the body's fields have. */
const WRONG = [
  null,
  true,
  'x',
  '',
  '💥\u202e',
  '\u0000',
  [],
  {},
  -1,
  1.5,
  2,
  2 ** 31,
  2 ** 53,
  1e21,
  -0,
  '-1',
  '01',
  ' 1',
  '1e3',
  '0x10',
  (1n << 256n).toString(),
  (1n << 144n).toString(),
  '9'.repeat(81),
  String(LATEST + 1),
  LATEST + 1,
  NOW,
  `0x${'g'.repeat(40)}`,
  OWNER.slice(0, -1),
];

describe('the order create body: fast check against the schema', () => {
  it("accepts every template with the schema's order (the corpus starts from valid bodies)", () => {
    for (const t of TEMPLATES) {
      const bySchema = parseOrderRequestBySchema(t, NOW, HORIZON);
      expect(parseOrderRequest(t, NOW, HORIZON)).toEqual(bySchema);
      expect(acceptedOrderBody(t, NOW, HORIZON)).toBeDefined();
    }
  });

  it('accepts and refuses the same fuzz bodies, with the same order and the same 400 body', () => {
    let accepted = 0;
    let refused = 0;
    fc.assert(
      fc.property(bodies, (body) => {
        if (expectSameAnswer(body).ok) accepted++;
        else refused++;
      }),
      { numRuns: RUNS },
    );
    // Both sides of the contract were exercised, not one.
    expect(accepted).toBeGreaterThan(RUNS / 20);
    expect(refused).toBeGreaterThan(RUNS / 20);
  });

  const everyPath = paths(TEMPLATES[0]).filter((p) => p.length > 0);
  it.each(everyPath.map((p) => [p.join('.'), p]))('a body without %s is refused as the schema refuses it, naming the field', (name, path) => {
    const answer = expectSameAnswer(withValue(TEMPLATES[0], path as string[], undefined));
    expect(answer).toEqual({ ok: false, body: expect.stringContaining(`"path":"${name as string}","message":"is required"`) });
  });

  it.each(everyPath.map((p) => [p.join('.'), p]))("every wrong value at %s gets the schema's answer", (_name, path) => {
    for (const t of TEMPLATES) for (const v of WRONG) expectSameAnswer(withValue(t, path as string[], v));
  });

  const objects = [[], ...everyPath.filter((p) => typeof p.reduce<unknown>((o, k) => (o as Record<string, unknown>)[k], TEMPLATES[0]) === 'object')];
  it.each(objects.map((p) => [p.join('.') || 'the body', p]))('an unknown key in %s is refused as the schema refuses it, naming the key', (_name, path) => {
    for (const key of ['extra', 'constructor', 'toString', 'hasOwnProperty', 'prototype', '__defineGetter__', 'ПРИВЕТ', '']) {
      for (const value of [1, null, {}, { amount: '1' }, TEMPLATES[0]]) {
        const body = withKeyInText(TEMPLATES[0], path as string[], key, value);
        const answer = expectSameAnswer(body);
        expect(answer.ok).toBe(false);
        // (An empty key at the top is named as the schema's 400 names the root: `(body)`.)
        const where = [...(path as string[]), key].join('.') || '(body)';
        expect(answer).toEqual({ ok: false, body: expect.stringContaining(JSON.stringify({ path: where }).slice(1, -1)) });
      }
    }
  });

  // zod copies an object's keys into a fresh one, where `__proto__` sets the copy's prototype
  // instead of adding a key: the schema never sees the key, accepts the body and drops it. The
  // check does the same; the order read is the same either way, the key and its value nowhere in it.
  it.each(objects.map((p) => [p.join('.') || 'the body', p]))('a __proto__ key in %s is dropped, as the schema drops it', (_name, path) => {
    for (const value of [1, null, 'x', [], {}, { amount: '1', chain_id: 'x', polluted: true }, TEMPLATES[0]]) {
      const body = withKeyInText(TEMPLATES[0], path as string[], '__proto__', value);
      // JSON.parse made it an own key, as Express's body parser does.
      const at = (path as string[]).reduce<unknown>((o, k) => (o as Record<string, unknown>)[k], body) as object;
      expect(Object.keys(at)).toContain('__proto__');
      const answer = expectSameAnswer(body);
      expect(answer).toEqual({ ok: true, value: parseOrderRequestBySchema(TEMPLATES[0], NOW, HORIZON) });
      expect(JSON.stringify(answer, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))).not.toContain('polluted');
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it.each([
    ['an option that expired', { pairKey: { optionType: 0, startExecutionTimeStamp: 0, expiryTimestamp: NOW } }, 'data.pairKey.expiryTimestamp'],
    ['an option past the horizon', { pairKey: { optionType: 0, startExecutionTimeStamp: 0, expiryTimestamp: LATEST + 1 } }, 'data.pairKey.expiryTimestamp'],
    [
      'a start neither 0 nor the expiry',
      { pairKey: { optionType: 0, startExecutionTimeStamp: NOW + DAY, expiryTimestamp: NOW + 2 * DAY } },
      'data.pairKey.startExecutionTimeStamp',
    ],
    ['an intent ending now', { intentExpiry: NOW }, 'data.intentExpiry'],
    ['an intent outliving the option', { intentExpiry: NOW + 30 * DAY + 1 }, 'data.intentExpiry'],
    ['an intent starting as it ends', { intentStartTime: NOW + 29 * DAY }, 'data.intentStartTime'],
    ['an intent starting past the horizon', { intentStartTime: LATEST + 1 }, 'data.intentStartTime'],
    [
      'a minimum reward over the maximum',
      { rewardLimits: { fillerRewardMaxPerMintedUnit: '1', fillerRewardMinPerMintedUnit: '2' } },
      'data.rewardLimits.fillerRewardMinPerMintedUnit',
    ],
    ['a minimum fill over the amount', { decayMinFill: { startMinFill: '1000000000000000001', decayRatePerSecond: '0' } }, 'data.decayMinFill.startMinFill'],
    ['a zero strike', { decayStrike: { strikeStart: '0', strikeEnd: '1', decayRateBpsPerSecond: 0 } }, 'data.decayStrike.strikeStart'],
    [
      'a strike past uint144',
      { decayStrike: { strikeStart: '1', strikeEnd: (1n << 144n).toString(), decayRateBpsPerSecond: 0 } },
      'data.decayStrike.strikeEnd',
    ],
    [
      'a decay rate past 10,000 bps',
      { decayPremium: { premiumStart: '1', premiumEnd: '1', decayRateBpsPerSecond: 10_001 } },
      'data.decayPremium.decayRateBpsPerSecond',
    ],
    ['an integer past 2^53', { decayPremium: { premiumStart: 2 ** 53, premiumEnd: '1', decayRateBpsPerSecond: 0 } }, 'data.decayPremium.premiumStart'],
    ['a put of 2', { buyOrSell: 2 }, 'data.buyOrSell'],
  ])('refuses %s as the schema does, with its message at the field', (_name, data, field) => {
    const answer = expectSameAnswer(order({ data }));
    expect(answer.ok).toBe(false);
    expect(answer).toEqual({ ok: false, body: expect.stringContaining(`"path":"${field}"`) });
  });

  it('answers a refused body with the 400 every field of it earns, as the schema writes it', () => {
    const body = order({ top: { chain_id: '31337', amount: 0, venue: 'x' }, data: { buyOrSell: null, intentExpiry: NOW } });
    expect(acceptedOrderBody(body, NOW, HORIZON)).toBeUndefined();
    let thrown: unknown;
    try {
      parseOrderRequest(body, NOW, HORIZON);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(ValidationError);
    expect((thrown as ValidationError).details?.map((p) => p.path).sort()).toEqual(['amount', 'chain_id', 'data.buyOrSell', 'data.intentExpiry', 'venue']);
    expectSameAnswer(body);
  });
});
