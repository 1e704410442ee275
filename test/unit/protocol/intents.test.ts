import { ValidationError } from '../../../shared/platform/errors';
import { intentToJson, intentToLeg, legToIntent, parseIntents } from '../../../shared/protocol';
import { EXPIRY, NOW, onlyProblem, OTHER_PAIR, PAIR, problemsOf, rawIntent } from './helpers';

const parse = (raw: unknown) => parseIntents(raw, { now: NOW });

describe('parseIntents: accepted forms', () => {
  it('normalises a leg: checksummed pair, numeric enums, bigint amounts', () => {
    const [leg] = parse([rawIntent()]);
    expect(leg).toEqual({
      pair6909_contract: PAIR,
      option_type: 0,
      structure: 0,
      start_exercise_timestamp: 0,
      expiry_timestamp: EXPIRY,
      strike_wad: 3_000_000_000n,
      amount: 10n ** 18n,
    });
  });

  it.each([
    ['call', 0],
    ['put', 1],
    ['PUT', 1],
    [0, 0],
    [1, 1],
  ])('option_type %p is %p', (input, expected) => {
    expect(parse([rawIntent({ option_type: input })])[0].option_type).toBe(expected);
  });

  it.each([
    [0, 0],
    ['a', 0],
    ['A', 0],
    [1, 1],
    ['b', 1],
    ['B', 1],
  ])('structure %p is %p', (input, expected) => {
    expect(parse([rawIntent({ structure: input })])[0].structure).toBe(expected);
  });

  it('accepts American (0) and European (= expiry) exercise', () => {
    expect(parse([rawIntent({ start_exercise_timestamp: 0 })])[0].start_exercise_timestamp).toBe(0);
    expect(parse([rawIntent({ start_exercise_timestamp: EXPIRY })])[0].start_exercise_timestamp).toBe(EXPIRY);
  });

  it('accepts timestamps as decimal strings', () => {
    const [leg] = parse([rawIntent({ expiry_timestamp: String(EXPIRY), start_exercise_timestamp: String(EXPIRY) })]);
    expect([leg.expiry_timestamp, leg.start_exercise_timestamp]).toEqual([EXPIRY, EXPIRY]);
  });

  it('accepts the extreme strikes and amounts', () => {
    const max144 = ((1n << 144n) - 1n).toString();
    const max256 = ((1n << 256n) - 1n).toString();
    const [a, b] = parse([rawIntent({ strike_wad: '1', amount: '1' }), rawIntent({ strike_wad: max144, amount: max256 })]);
    expect([a.strike_wad, a.amount, b.strike_wad, b.amount]).toEqual([1n, 1n, BigInt(max144), BigInt(max256)]);
  });

  it('round-trips through JSON and the on-chain Leg', () => {
    const [leg] = parse([rawIntent({ option_type: 'put', structure: 'b' })]);
    expect(legToIntent(intentToLeg(leg))).toEqual(leg);
    expect(parse([intentToJson(leg)])).toEqual([leg]);
    expect(intentToJson(leg)).toEqual({ ...rawIntent({ option_type: 1, structure: 1 }), pair6909_contract: PAIR });
  });
});

describe('parseIntents: every error names the leg and field', () => {
  it('throws the project ValidationError (400, validation_failed)', () => {
    let caught: unknown;
    try {
      parse([rawIntent({ amount: '0' })]);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ValidationError);
    expect((caught as ValidationError).status).toBe(400);
    expect((caught as ValidationError).code).toBe('validation_failed');
    expect((caught as ValidationError).message).toBe('invalid request: intents[0].amount: must be between 1 and ' + ((1n << 256n) - 1n) + ' (uint256)');
  });

  it.each([
    ['not an array', { x: 1 }, 'intents: must be an array'],
    ['empty', [], 'intents: must have between 1 and 8 items'],
    ['too many legs', Array.from({ length: 9 }, () => rawIntent()), 'intents: must have between 1 and 8 items'],
    ['a leg that is not an object', ['call'], 'intents[0]: must be an object'],
  ])('%s', (_name, input, expected) => {
    expect(onlyProblem(() => parse(input))).toBe(expected);
  });

  it.each(['pair6909_contract', 'option_type', 'structure', 'start_exercise_timestamp', 'expiry_timestamp', 'strike_wad', 'amount'])(
    'missing %s is required',
    (field) => {
      const leg = rawIntent();
      delete leg[field];
      expect(onlyProblem(() => parse([rawIntent(), leg]))).toBe(`intents[1].${field}: is required`);
    },
  );

  it.each([
    ['pair6909_contract', 'WETH', 'must be a 0x-prefixed 20-byte hex address'],
    ['pair6909_contract', '0x1234', 'must be a 0x-prefixed 20-byte hex address'],
    ['option_type', 'straddle', 'must be "call", "put", 0 (call) or 1 (put)'],
    ['option_type', 2, 'must be "call", "put", 0 (call) or 1 (put)'],
    ['structure', 2, 'must be 0 or "a" (follows polarity), or 1 or "b" (flips the leg)'],
    ['structure', 'c', 'must be 0 or "a" (follows polarity), or 1 or "b" (flips the leg)'],
    ['strike_wad', 3000, 'must be a decimal integer string'],
    ['strike_wad', '0', `must be between 1 and ${(1n << 144n) - 1n} (uint144)`],
    ['strike_wad', (1n << 144n).toString(), `must be between 1 and ${(1n << 144n) - 1n} (uint144)`],
    ['strike_wad', '-5', 'must be a decimal integer string without sign, spaces or leading zeros'],
    ['strike_wad', '1.5', 'must be a decimal integer string without sign, spaces or leading zeros'],
    ['strike_wad', '007', 'must be a decimal integer string without sign, spaces or leading zeros'],
    ['amount', '0', `must be between 1 and ${(1n << 256n) - 1n} (uint256)`],
    ['amount', (1n << 256n).toString(), `must be between 1 and ${(1n << 256n) - 1n} (uint256)`],
    ['amount', 1e18, 'must be a decimal integer string'],
    ['expiry_timestamp', 1.5, 'must be an integer of unix seconds between 0 and 1099511627775'],
    ['expiry_timestamp', -1, 'must be an integer of unix seconds between 0 and 1099511627775'],
    ['expiry_timestamp', 2 ** 40, 'must be an integer of unix seconds between 0 and 1099511627775'],
    ['start_exercise_timestamp', 'soon', 'must be an integer of unix seconds between 0 and 1099511627775'],
  ])('%s = %p: %s', (field, value, message) => {
    // Leg 0 stays valid so cross-leg rules do not add problems of their own.
    const path = field === 'expiry_timestamp' || field === 'pair6909_contract' ? `intents[0].${field}` : `intents[1].${field}`;
    const legs = path.startsWith('intents[0]') ? [rawIntent({ [field]: value })] : [rawIntent(), rawIntent({ [field]: value })];
    expect(onlyProblem(() => parse(legs))).toBe(`${path}: ${message}`);
  });

  it('expiry must be in the future relative to the given now', () => {
    expect(onlyProblem(() => parse([rawIntent({ expiry_timestamp: NOW, start_exercise_timestamp: 0 })]))).toBe(
      `intents[0].expiry_timestamp: must be in the future (now is ${NOW})`,
    );
    expect(parseIntents([rawIntent({ expiry_timestamp: NOW })], { now: NOW - 1 })[0].expiry_timestamp).toBe(NOW);
  });

  it('start_exercise_timestamp other than 0 or the expiry names the rule', () => {
    expect(onlyProblem(() => parse([rawIntent({ start_exercise_timestamp: EXPIRY - 1 })]))).toBe(
      'intents[0].start_exercise_timestamp: must be 0 (American: exercisable any time until expiry) or equal to expiry_timestamp (European: expiry day only)',
    );
  });

  it('all legs must use the same pair', () => {
    expect(onlyProblem(() => parse([rawIntent(), rawIntent({ pair6909_contract: OTHER_PAIR })]))).toBe(
      `intents[1].pair6909_contract: all legs must use the same pair6909_contract as intents[0] (${PAIR})`,
    );
  });

  it('all legs must share the expiry', () => {
    expect(onlyProblem(() => parse([rawIntent(), rawIntent(), rawIntent({ expiry_timestamp: EXPIRY + 1 })]))).toBe(
      `intents[2].expiry_timestamp: all legs must share the expiry of intents[0] (${EXPIRY})`,
    );
  });

  it('reports every bad field of every leg at once', () => {
    const details = problemsOf(() =>
      parse([
        rawIntent({ strike_wad: '0', option_type: 'x' }),
        rawIntent({ pair6909_contract: OTHER_PAIR, amount: '-1', structure: 7 }),
        rawIntent({ expiry_timestamp: EXPIRY + 60 }),
      ]),
    );
    expect(details.map((d) => d.path)).toEqual([
      'intents[0].option_type',
      'intents[0].strike_wad',
      'intents[1].structure',
      'intents[1].amount',
      'intents[1].pair6909_contract',
      'intents[2].expiry_timestamp',
    ]);
  });

  it('uses the caller-given root path', () => {
    expect(onlyProblem(() => parseIntents([rawIntent({ amount: 'lots' })], { now: NOW, path: 'dutch_request.intents' }))).toBe(
      'dutch_request.intents[0].amount: must be a decimal integer string without sign, spaces or leading zeros',
    );
  });
});
