import { ValidationError } from '../../../shared/platform/errors';
import { direction, directions, flipPolarity, parseDirections, parsePolarity } from '../../../shared/protocol';
import { onlyProblem } from './helpers';

describe('direction (spec: polarity x structure)', () => {
  it.each([
    ['b_is_buy', 0, 1],
    ['b_is_buy', 1, 0],
    ['a_is_buy', 0, 0],
    ['a_is_buy', 1, 1],
  ] as const)('%s with structure %i is %i', (polarity, structure, expected) => {
    expect(direction(polarity, structure)).toBe(expected);
  });

  it('maps every leg in order', () => {
    expect(directions('b_is_buy', [0, 1, 1, 0])).toEqual([1, 0, 0, 1]);
    expect(directions('a_is_buy', [0, 1, 1, 0])).toEqual([0, 1, 1, 0]);
    expect(directions('b_is_buy', [])).toEqual([]);
  });

  it('flipping the polarity flips every direction', () => {
    for (const structures of [[0], [1], [0, 1], [1, 1, 0]] as (0 | 1)[][]) {
      const buy = directions('b_is_buy', structures);
      expect(directions(flipPolarity('b_is_buy'), structures)).toEqual(buy.map((d) => 1 - d));
    }
    expect(flipPolarity('a_is_buy')).toBe('b_is_buy');
  });
});

describe('parsePolarity / parseDirections', () => {
  it('accepts the two polarities and refuses anything else', () => {
    expect(parsePolarity('b_is_buy')).toBe('b_is_buy');
    expect(parsePolarity('a_is_buy')).toBe('a_is_buy');
    expect(() => parsePolarity('buy')).toThrow(ValidationError);
    expect(onlyProblem(() => parsePolarity(undefined))).toBe('polarity: must be "b_is_buy" (buy / long the strategy) or "a_is_buy" (sell / short it)');
  });

  it('reads directions as 0/1 or buy/sell', () => {
    expect(parseDirections([0, 1, 'buy', 'SELL'])).toEqual([0, 1, 0, 1]);
  });

  it('names each bad item and checks the leg count', () => {
    expect(onlyProblem(() => parseDirections([0, 2]))).toBe('directions[1]: must be 0 or "buy", or 1 or "sell"');
    expect(onlyProblem(() => parseDirections([0], { legs: 2 }))).toBe('directions: must have exactly 2 items');
    expect(onlyProblem(() => parseDirections('01'))).toBe('directions: must be an array');
  });
});
