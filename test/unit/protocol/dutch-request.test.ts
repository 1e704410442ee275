import { zeroAddress } from 'viem';
import { directionsHash, dutchRequestToJson, parseDutchRequest } from '../../../shared/protocol';
import { EXPIRY, NOW, onlyProblem, PAIR, problemsOf, rawIntent } from './helpers';

const WETH = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
const USDC = '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512';
const MOTHERSHIP = '0xDc64a140Aa3E981100a9becA4E685f962f0cF6C9';

function rawDutch(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    intents: [rawIntent({ structure: 0 }), rawIntent({ structure: 'b', strike_wad: '3500000000' })],
    tokens: [{ token0: WETH.toLowerCase(), token1: USDC, premium_token: USDC }],
    dutch_premium: {
      token: USDC,
      maker_pays_taker: false,
      start_premium: '150000000',
      end_premium: '90000000',
      decay_rate: '100',
      auction_start: NOW,
    },
    auction_end: NOW + 120,
    maker_address_hash: directionsHash([1, 0]).toUpperCase().replace('0X', '0x'),
    taker_nonce: '7',
    required_authority: zeroAddress,
    required_dutch_authority: MOTHERSHIP,
    referrer: zeroAddress,
    ...over,
  };
}

const parse = (raw: unknown) => parseDutchRequest(raw, { now: NOW });

describe('dutch_request <-> DutchFillRequest', () => {
  it('parses into the on-chain struct', () => {
    const req = parse(rawDutch());
    expect(req.intents).toHaveLength(2);
    expect(req.intents[1]).toEqual({
      pair6909Contract: PAIR,
      optionType: 0,
      structure: 1,
      startExerciseTimestamp: 0,
      expiryTimestamp: EXPIRY,
      strikeWad: 3_500_000_000n,
      amount: 10n ** 18n,
    });
    expect(req.tokens).toEqual([{ token0: WETH, token1: USDC, premiumToken: USDC }]);
    expect(req.dutchPremium).toEqual({
      token: USDC,
      makerPaysTaker: false,
      startPremium: 150_000_000n,
      endPremium: 90_000_000n,
      decayRate: 100n,
      auctionStart: NOW,
    });
    expect(req.makerAddressHash).toBe(directionsHash([1, 0]));
    expect([req.auctionEnd, req.takerNonce, req.requiredDutchAuthority]).toEqual([NOW + 120, 7n, MOTHERSHIP]);
  });

  it('round-trips through its JSON form', () => {
    const req = parse(rawDutch());
    const json = dutchRequestToJson(req);
    expect(json.tokens[0].token0).toBe(WETH);
    expect(json.intents[1].structure).toBe(1);
    expect(json.maker_address_hash).toBe(directionsHash([1, 0]));
    expect(JSON.parse(JSON.stringify(json))).toEqual(json);
    expect(parse(json)).toEqual(req);
  });

  it('defaults referrer and required_authority to the zero address', () => {
    const raw = rawDutch();
    delete raw.referrer;
    delete raw.required_authority;
    const req = parse(raw);
    expect([req.referrer, req.requiredAuthority]).toEqual([zeroAddress, zeroAddress]);
  });
});

describe('dutch_request errors', () => {
  it('must be an object', () => {
    expect(onlyProblem(() => parse('x'))).toBe('dutch_request: must be an object');
  });

  it.each([
    ['tokens', [], 'dutch_request.tokens: must have between 1 and 8 items'],
    ['tokens', [{ token0: WETH, token1: 'usdc', premium_token: USDC }], 'dutch_request.tokens[0].token1: must be a 0x-prefixed 20-byte hex address'],
    ['tokens', ['WETH/USDC'], 'dutch_request.tokens[0]: must be an object with token0, token1 and premium_token'],
    ['dutch_premium', null, 'dutch_request.dutch_premium: must be an object'],
    ['maker_address_hash', '0x1234', 'dutch_request.maker_address_hash: must be 0x followed by 64 hex digits'],
    ['taker_nonce', 7, 'dutch_request.taker_nonce: must be a decimal integer string'],
    ['required_dutch_authority', undefined, 'dutch_request.required_dutch_authority: must be a 0x-prefixed 20-byte hex address'],
    ['referrer', 'nobody', 'dutch_request.referrer: must be a 0x-prefixed 20-byte hex address'],
    ['required_authority', '0x0', 'dutch_request.required_authority: must be a 0x-prefixed 20-byte hex address'],
    ['auction_end', 'later', 'dutch_request.auction_end: must be an integer of unix seconds between 0 and 1099511627775'],
    ['auction_end', NOW, `dutch_request.auction_end: must be after dutch_premium.auction_start (${NOW})`],
    ['auction_end', EXPIRY + 1, `dutch_request.auction_end: must not be after the legs' expiry_timestamp (${EXPIRY})`],
  ])('%s = %j', (field, value, expected) => {
    expect(onlyProblem(() => parse(rawDutch({ [field]: value })))).toBe(expected);
  });

  it('an auction that already ended is refused', () => {
    const raw = rawDutch({ auction_end: NOW - 10 });
    (raw.dutch_premium as Record<string, unknown>).auction_start = NOW - 100;
    expect(onlyProblem(() => parse(raw))).toBe(`dutch_request.auction_end: must be in the future (now is ${NOW})`);
  });

  it.each([
    ['maker_pays_taker', 'no', 'must be true or false'],
    ['start_premium', '-1', 'must be a decimal integer string without sign, spaces or leading zeros'],
    ['end_premium', 5, 'must be a decimal integer string'],
    ['decay_rate', (1n << 256n).toString(), `must fit uint256 (at most ${(1n << 256n) - 1n})`],
    ['token', '', 'must be a 0x-prefixed 20-byte hex address'],
    ['auction_start', -5, 'must be an integer of unix seconds between 0 and 1099511627775'],
  ])('dutch_premium.%s = %j', (field, value, message) => {
    const raw = rawDutch();
    (raw.dutch_premium as Record<string, unknown>)[field] = value;
    expect(onlyProblem(() => parse(raw))).toBe(`dutch_request.dutch_premium.${field}: ${message}`);
  });

  it('reports intent errors under dutch_request.intents, with the rest, at once', () => {
    const raw = rawDutch({ taker_nonce: 'x', intents: [rawIntent(), rawIntent({ strike_wad: '0', expiry_timestamp: EXPIRY + 1 })] });
    expect(problemsOf(() => parse(raw)).map((d) => d.path)).toEqual([
      'dutch_request.intents[1].strike_wad',
      'dutch_request.intents[1].expiry_timestamp',
      'dutch_request.taker_nonce',
    ]);
  });
});
