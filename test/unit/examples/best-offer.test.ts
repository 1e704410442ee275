import type { RfqOfferEvent } from '../../../client/src';
import { bestOffer } from '../../../examples/taker';

const USDC = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
const WETH = '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512';
let n = 0;
const offer = (premium: string, over: Partial<RfqOfferEvent> = {}): RfqOfferEvent =>
  ({
    offer_id: `offer-${++n}`,
    maker: `0x${String(n).padStart(40, '0')}`,
    package_premium: premium,
    maker_pays_taker: false,
    premium_token: USDC,
    ...over,
  }) as RfqOfferEvent;

/** The demo's taker takes the best offer it heard, not the first (README.md, "Try it"). */
describe("the demo taker's choice among offers", () => {
  it('takes the lowest premium it pays, whichever maker answered first', () => {
    const own = offer('240000000');
    const bot = offer('100000000');
    expect(bestOffer([own, bot])).toBe(bot);
    expect(bestOffer([bot, own])).toBe(bot);
  });

  it('prefers being paid to paying, and more paid to less', () => {
    const pays = offer('1');
    const paid = offer('5', { maker_pays_taker: true });
    const paidMore = offer('7', { maker_pays_taker: true });
    expect(bestOffer([pays, paid, paidMore])).toBe(paidMore);
  });

  it('keeps the earlier offer on a tie, compares only offers in the first offer’s premium token, and refuses an empty list', () => {
    const first = offer('100');
    const same = offer('100');
    const otherToken = offer('1', { premium_token: WETH });
    expect(bestOffer([first, same, otherToken])).toBe(first);
    expect(() => bestOffer([])).toThrow('no offer to choose from');
  });
});
