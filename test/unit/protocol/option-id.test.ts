import fc from 'fast-check';
import { decodeOptionId, encodeOptionId, type OptionSeries } from '../../../shared/protocol';

const series: OptionSeries = {
  option_type: 1,
  strike_wad: 3_000_000_000n,
  expiry_timestamp: 1_767_225_600,
  start_exercise_timestamp: 1_767_225_600,
};

describe('option id encoding', () => {
  it('packs type, start, expiry and strike into fixed bit ranges', () => {
    const id = encodeOptionId(series);
    expect(id).toBe((1n << 224n) | (1_767_225_600n << 184n) | (1_767_225_600n << 144n) | 3_000_000_000n);
    expect(decodeOptionId(id)).toEqual(series);
  });

  it('round-trips any series', () => {
    fc.assert(
      fc.property(
        fc.record({
          option_type: fc.constantFrom(0 as const, 1 as const),
          strike_wad: fc.bigInt({ min: 0n, max: (1n << 144n) - 1n }),
          expiry_timestamp: fc.integer({ min: 0, max: 2 ** 40 - 1 }),
          start_exercise_timestamp: fc.integer({ min: 0, max: 2 ** 40 - 1 }),
        }),
        (s) => {
          const id = encodeOptionId(s);
          expect(id >> 232n).toBe(0n);
          expect(decodeOptionId(id)).toEqual(s);
        },
      ),
      { seed: 6909, numRuns: 300 },
    );
  });

  it('refuses values that do not fit their fields', () => {
    expect(() => encodeOptionId({ ...series, strike_wad: 1n << 144n })).toThrow('does not fit uint144');
    expect(() => encodeOptionId({ ...series, expiry_timestamp: 2 ** 40 })).toThrow('does not fit uint40');
    expect(() => encodeOptionId({ ...series, start_exercise_timestamp: -1 })).toThrow('does not fit uint40');
    expect(() => encodeOptionId({ ...series, option_type: 2 as 0 })).toThrow('is not 0 or 1');
  });

  it('refuses ids with reserved bits or an unknown type', () => {
    expect(() => decodeOptionId(encodeOptionId(series) | (1n << 240n))).toThrow('reserved bits');
    expect(() => decodeOptionId(2n << 224n)).toThrow('option_type 2');
  });
});
