import { UINT144_MAX, UINT256_MAX } from '../../../wire/src/protocol/constants';
import {
  CHAIN_ID,
  chainIdQuery,
  chainIdSchema,
  inRange,
  PG_INT4_MAX,
  readDecimalUint,
  readUnixSeconds,
  UINT8,
  uintString,
  UNIX_SECONDS,
} from '../../../shared/platform/validation';

describe('integer bounds', () => {
  it('a chain id fits the registry`s integer column, and nothing past it', () => {
    expect(PG_INT4_MAX).toBe(2 ** 31 - 1);
    for (const ok of [1, 31337, PG_INT4_MAX]) expect(chainIdSchema.safeParse(ok).success).toBe(true);
    for (const bad of [0, -1, 1.5, PG_INT4_MAX + 1, 3_000_000_000, 2 ** 53 - 1, '1', null]) {
      const r = chainIdSchema.safeParse(bad);
      expect([bad, r.success]).toEqual([bad, false]);
      expect(r.error?.issues[0].message).toBe(CHAIN_ID.message);
    }
  });

  it('a query chain id is plain digits within the same range', () => {
    expect(chainIdQuery.parse({ chain_id: '31337' })).toEqual({ chain_id: 31337 });
    expect(chainIdQuery.parse({})).toEqual({ chain_id: undefined });
    expect(chainIdQuery.parse({ chain_id: String(PG_INT4_MAX) })).toEqual({ chain_id: PG_INT4_MAX });
    for (const bad of ['0', '-1', '01', '1e3', '0x1', ' 1', '1.0', String(PG_INT4_MAX + 1), '9'.repeat(40), ['1', '2'], { a: '1' }]) {
      const r = chainIdQuery.safeParse({ chain_id: bad });
      expect([bad, r.success, r.error?.issues[0].path]).toEqual([bad, false, ['chain_id']]);
    }
  });

  it('unix seconds are uint40 and uint8 is 0..255', () => {
    expect(inRange(2 ** 40 - 1, UNIX_SECONDS)).toBe(true);
    expect(inRange(2 ** 40, UNIX_SECONDS)).toBe(false);
    expect(readUnixSeconds('1700000000')).toBe(1_700_000_000);
    expect(readUnixSeconds('01700000000')).toBeUndefined();
    expect(readUnixSeconds(-1)).toBeUndefined();
    expect(inRange(255, UINT8)).toBe(true);
    expect(inRange(256, UINT8)).toBe(false);
    expect(inRange('7', UINT8)).toBe(false);
  });

  it('decimal strings are read exactly and bounded to their Solidity width', () => {
    expect(readDecimalUint(UINT144_MAX.toString(), { max: UINT144_MAX, what: 'uint144' })).toEqual({ value: UINT144_MAX });
    expect(readDecimalUint((UINT144_MAX + 1n).toString(), { max: UINT144_MAX, what: 'uint144' })).toEqual({
      problem: `must fit uint144 (at most ${UINT144_MAX})`,
    });
    expect(readDecimalUint('0', { min: 1n })).toEqual({ problem: `must be between 1 and ${UINT256_MAX} (uint256)` });
    expect(readDecimalUint(5)).toEqual({ problem: 'must be a decimal integer string' });
    expect(readDecimalUint('9'.repeat(81))).toEqual({ problem: 'must be a decimal integer string without sign, spaces or leading zeros' });
    expect(uintString().safeParse(UINT256_MAX.toString()).success).toBe(true);
    expect(uintString().safeParse((UINT256_MAX + 1n).toString()).error?.issues[0].message).toBe(`must fit uint256 (at most ${UINT256_MAX})`);
  });
});
