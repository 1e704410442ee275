import { zeroAddress } from 'viem';
import { leastOwedInWindow } from '../../../shared/dutch';
import type { DutchFillRequest } from '../../../shared/protocol';

/** A taker-pays request: 1,000,000 -> 2,000,000 units in a straight line over 600 s from t = 10,000. */
const request = (premium: Partial<DutchFillRequest['dutchPremium']> = {}): DutchFillRequest => ({
  intents: [],
  tokens: [],
  dutchPremium: {
    token: zeroAddress,
    makerPaysTaker: false,
    startPremium: 1_000_000n,
    endPremium: 2_000_000n,
    decayRate: 0n,
    auctionStart: 10_000,
    ...premium,
  },
  auctionEnd: 10_600,
  makerAddressHash: `0x${'00'.repeat(32)}`,
  takerNonce: 1n,
  requiredAuthority: zeroAddress,
  requiredDutchAuthority: zeroAddress,
  referrer: zeroAddress,
});

describe("the least a paying taker owes the winner in its window (the unfillable taker's bar)", () => {
  it("is the curve at the award's not_before, improved by the winning bps, rounded as the contract rounds", () => {
    // 60 s in: 1,000,000 + 1,000,000 * 60 / 600 = 1,100,000; 40 bps off for the taker: 1,100,000 * 9,960 / 10,000.
    expect(leastOwedInWindow(request(), { improvement_bps: '40', not_before: 10_060 })).toBe(1_095_600n);
    expect(leastOwedInWindow(request(), { improvement_bps: '0', not_before: 10_060 })).toBe(1_100_000n);
    // Before the auction's start the start premium, after its end the end premium.
    expect(leastOwedInWindow(request(), { improvement_bps: '0', not_before: 9_000 })).toBe(1_000_000n);
    expect(leastOwedInWindow(request(), { improvement_bps: '0', not_before: 11_000 })).toBe(2_000_000n);
    // 1 bps of 1,000,003 rounds down (in the maker's favour): 1,000,003 * 9,999 / 10,000 = 999,902.9997.
    expect(leastOwedInWindow(request({ startPremium: 1_000_003n }), { improvement_bps: '1', not_before: 10_000 })).toBe(999_902n);
  });

  it('never exceeds what a fill later in the window costs: the curve only rises while the taker pays', () => {
    const r = request({ decayRate: 1_000n });
    const start = leastOwedInWindow(r, { improvement_bps: '25', not_before: 10_100 });
    for (const t of [10_101, 10_200, 10_599, 10_600, 12_000])
      expect(leastOwedInWindow(r, { improvement_bps: '25', not_before: t })).toBeGreaterThanOrEqual(start);
  });
});
