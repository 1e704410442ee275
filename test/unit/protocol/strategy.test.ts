import { directions, recognizeStrategy, type Direction, type StrategyLeg, type StrategyName } from '../../../shared/protocol';

const BASE = 10n ** 18n;
const call = (strike: number, structure: 0 | 1, multiple = 1n): StrategyLeg => ({
  option_type: 0,
  structure,
  strike_wad: BigInt(strike),
  amount: BASE * multiple,
});
const put = (strike: number, structure: 0 | 1, multiple = 1n): StrategyLeg => ({ ...call(strike, structure, multiple), option_type: 1 });

const flip = (ds: Direction[]): Direction[] => ds.map((d) => (d === 1 ? 0 : 1));

/** The spec's recipe table: legs in the listed order and the "Directions (buy)" column. */
const RECIPES: [string, StrategyName, StrategyLeg[], Direction[]][] = [
  ['single call', 'single', [call(3000, 0)], [1]],
  ['single put', 'single', [put(3000, 0)], [1]],
  ['capped call', 'capped_call', [call(3000, 0), call(3500, 1)], [1, 0]],
  ['capped put listed high first', 'capped_put', [put(3000, 0), put(2500, 1)], [1, 0]],
  ['capped put listed low first', 'capped_put', [put(2500, 1), put(3000, 0)], [0, 1]],
  ['straddle', 'straddle', [call(3000, 0), put(3000, 0)], [1, 1]],
  ['strangle', 'strangle', [put(2800, 0), call(3200, 0)], [1, 1]],
  ['call butterfly', 'butterfly', [call(2800, 0), call(3000, 1, 2n), call(3200, 0)], [1, 0, 1]],
  ['put butterfly', 'butterfly', [put(2800, 0), put(3000, 1, 2n), put(3200, 0)], [1, 0, 1]],
  ['call condor', 'condor', [call(2600, 0), call(2800, 1), call(3200, 1), call(3400, 0)], [1, 0, 0, 1]],
  ['put condor', 'condor', [put(2600, 0), put(2800, 1), put(3200, 1), put(3400, 0)], [1, 0, 0, 1]],
  ['iron butterfly', 'iron_butterfly', [put(2800, 0), put(3000, 1), call(3000, 1), call(3200, 0)], [1, 0, 0, 1]],
  ['iron condor', 'iron_condor', [put(2600, 0), put(2800, 1), call(3200, 1), call(3400, 0)], [1, 0, 0, 1]],
  ['risk reversal', 'risk_reversal', [put(2800, 1), call(3200, 0)], [0, 1]],
  ['collar', 'collar', [put(2800, 0), call(3200, 1)], [1, 0]],
];

describe('strategy recipes (spec table), both polarities', () => {
  describe.each(RECIPES)('%s', (_label, name, legs, buyDirections) => {
    const structures = legs.map((l) => l.structure);

    it(`buying (b_is_buy) is ${name} with directions [${buyDirections}]`, () => {
      expect(recognizeStrategy(legs)).toBe(name);
      expect(directions('b_is_buy', structures)).toEqual(buyDirections);
    });

    it(`selling (a_is_buy) is ${name} with directions [${flip(buyDirections)}]`, () => {
      // Selling keeps the buy structures and flips only the polarity (spec rule 4).
      expect(recognizeStrategy(legs)).toBe(name);
      expect(directions('a_is_buy', structures)).toEqual(flip(buyDirections));
    });
  });

  it('selling a straddle gives [0,0]', () => {
    expect(directions('a_is_buy', [0, 0])).toEqual([0, 0]);
    expect(recognizeStrategy([call(3000, 0), put(3000, 0)])).toBe('straddle');
  });

  it('names do not depend on listing order; directions follow it', () => {
    const legs = [call(3200, 0), put(3000, 1), put(2800, 0), call(3000, 1)];
    expect(recognizeStrategy(legs)).toBe('iron_butterfly');
    expect(
      directions(
        'b_is_buy',
        legs.map((l) => l.structure),
      ),
    ).toEqual([1, 0, 1, 0]);
    expect(recognizeStrategy([put(3000, 0), call(3000, 0)])).toBe('straddle');
    expect(recognizeStrategy([call(3500, 1), call(3000, 0)])).toBe('capped_call');
  });
});

describe('anything outside the recipes is custom', () => {
  it.each<[string, StrategyLeg[]]>([
    ['no legs', []],
    ['a single leg with structure 1', [call(3000, 1)]],
    ['capped call with the strikes inverted', [call(3500, 0), call(3000, 1)]],
    ['capped call with unequal amounts', [call(3000, 0), call(3500, 1, 2n)]],
    ['capped put with the strikes inverted', [put(2500, 0), put(3000, 1)]],
    ['two calls with the same structure', [call(3000, 0), call(3500, 0)]],
    ['straddle leg with structure 1', [call(3000, 0), put(3000, 1)]],
    ['strangle with the put above the call', [put(3200, 0), call(2800, 0)]],
    ['butterfly with a 1x body', [call(2800, 0), call(3000, 1), call(3200, 0)]],
    ['butterfly with a 3x body', [call(2800, 0), call(3000, 1, 3n), call(3200, 0)]],
    ['butterfly mixing calls and puts', [call(2800, 0), put(3000, 1, 2n), call(3200, 0)]],
    ['butterfly with the body outside the wings', [call(2800, 0), call(3400, 1, 2n), call(3200, 0)]],
    ['butterfly with a wing on the body strike', [call(3000, 0), call(3000, 1, 2n), call(3200, 0)]],
    ['condor with equal inner strikes', [call(2600, 0), call(3000, 1), call(3000, 1), call(3400, 0)]],
    ['condor mixing types', [call(2600, 0), put(2800, 1), call(3200, 1), call(3400, 0)]],
    ['iron butterfly with a wing inside the body', [put(3100, 0), put(3000, 1), call(3000, 1), call(3200, 0)]],
    ['iron condor with a doubled leg', [put(2600, 0), put(2800, 1, 2n), call(3200, 1), call(3400, 0)]],
    ['iron condor with the put wing structure flipped', [put(2600, 1), put(2800, 1), call(3200, 1), call(3400, 0)]],
    ['risk reversal with the put above the call', [put(3200, 1), call(2800, 0)]],
    ['collar with the put above the call', [put(3200, 0), call(2800, 1)]],
    ['five legs', [call(1, 0), call(2, 0), call(3, 0), call(4, 0), call(5, 0)]],
  ])('%s', (_label, legs) => {
    expect(recognizeStrategy(legs)).toBe('custom');
  });

  it('unequal strikes on a straddle make it a strangle only when the put is below', () => {
    expect(recognizeStrategy([call(3000, 0), put(2900, 0)])).toBe('strangle');
    expect(recognizeStrategy([call(3000, 0), put(3100, 0)])).toBe('custom');
  });
});
