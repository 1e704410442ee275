import fc from 'fast-check';
import { bytesToHex, getAddress, type Address, type Hex } from 'viem';
import type { Direction, DutchAward, DutchFillRequest, DutchPremium, ExclusiveFill, Leg, OrderIntent, PackageOffer } from '../../../shared/protocol';

/**
 * Random protocol structures over each field's full on-chain range (not only valid quotes):
 * the hashes must agree for every value the contracts accept.
 */
export const address: fc.Arbitrary<Address> = fc.uint8Array({ minLength: 20, maxLength: 20 }).map((b) => getAddress(bytesToHex(b)));
export const bytes32: fc.Arbitrary<Hex> = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => bytesToHex(b));
const uint = (bits: bigint) => fc.bigInt({ min: 0n, max: (1n << bits) - 1n });
const uint40 = fc.integer({ min: 0, max: 2 ** 40 - 1 });
const uint8 = fc.integer({ min: 0, max: 255 });

export const directions: fc.Arbitrary<Direction[]> = fc.array(fc.constantFrom<Direction>(0, 1), { maxLength: 8 });

export const leg: fc.Arbitrary<Leg> = fc.record({
  pair6909Contract: address,
  optionType: uint8,
  structure: uint8,
  startExerciseTimestamp: uint40,
  expiryTimestamp: uint40,
  strikeWad: uint(144n),
  amount: uint(256n),
});

export const packageOffer: fc.Arbitrary<PackageOffer> = fc.record({
  takerAddressHash: bytes32,
  legs: fc.array(leg, { maxLength: 4 }),
  packagePremium: uint(256n),
  makerPaysTaker: fc.boolean(),
  premiumToken: address,
  maker: address,
  nonce: uint(256n),
  deadline: uint40,
});

export const dutchFillRequest: fc.Arbitrary<DutchFillRequest> = fc.record({
  intents: fc.array(leg, { maxLength: 4 }),
  tokens: fc.array(fc.record({ token0: address, token1: address, premiumToken: address }), { maxLength: 3 }),
  dutchPremium: fc.record({
    token: address,
    makerPaysTaker: fc.boolean(),
    startPremium: uint(256n),
    endPremium: uint(256n),
    decayRate: uint(256n),
    auctionStart: uint40,
  }),
  auctionEnd: uint40,
  makerAddressHash: bytes32,
  takerNonce: uint(256n),
  requiredAuthority: address,
  requiredDutchAuthority: address,
  referrer: address,
});

export const dutchAward: fc.Arbitrary<DutchAward> = fc.record({
  requestDigest: bytes32,
  filler: address,
  improvementBps: uint(256n),
  notBefore: uint40,
  exclusiveEnd: uint40,
});

/**
 * A curve read at a time before, inside or after its auction: premiums of any size up to 2^200,
 * decay rates of 0 (the straight line), small (a real decay) or huge (capped at once).
 */
export const curvePoint: fc.Arbitrary<{ premium: DutchPremium; auctionEnd: number; at: number }> = fc
  .record({
    token: address,
    makerPaysTaker: fc.boolean(),
    startPremium: uint(200n),
    endPremium: uint(200n),
    decayRate: fc.oneof(fc.constant(0n), uint(32n), uint(256n)),
    auctionStart: fc.integer({ min: 0, max: 2 ** 39 }),
    span: fc.integer({ min: 1, max: 100_000 }),
    offset: fc.integer({ min: -1000, max: 101_000 }),
  })
  .map(({ span, offset, ...p }) => ({ premium: p, auctionEnd: p.auctionStart + span, at: Math.max(0, p.auctionStart + offset) }));

export const improvement = fc.record({ premium: uint(240n), makerPaysTaker: fc.boolean(), bps: fc.bigInt({ min: 0n, max: 10_000n }) });

export const exclusiveFill: fc.Arbitrary<ExclusiveFill> = fc.record({
  exclusiveFillId: bytes32,
  maker: address,
  orderIds: fc.array(bytes32, { maxLength: 5 }),
  rewardDestination: address,
  intentDataHash: bytes32,
  expireTime: uint40,
});

export const orderIntent: fc.Arbitrary<OrderIntent> = fc.record({
  from: address,
  to: address,
  noncePrefix: uint(64n),
  nonce: uint(256n),
  options6909Contract: address,
  amount: uint(256n),
  fillerRewardMaxPerMintedUnit: uint(256n),
  fillerRewardMinPerMintedUnit: uint(256n),
  optionType: uint8,
  startExecutionTimestamp: uint40,
  expiryTimestamp: uint40,
  premiumStart: uint(256n),
  premiumEnd: uint(256n),
  premiumDecayRateBpsPerSecond: fc.integer({ min: 0, max: 2 ** 32 - 1 }),
  strikeStart: uint(144n),
  strikeEnd: uint(144n),
  strikeDecayRateBpsPerSecond: fc.integer({ min: 0, max: 2 ** 32 - 1 }),
  startMinFill: uint(256n),
  minFillDecayRatePerSecond: uint(256n),
  buyOrSell: uint8,
  intentStartTime: uint40,
  intentExpiry: uint40,
  orderOnExpiry: uint8,
});

export const takerHashInput = fc.record({ taker: address, salt: bytes32, directions, referrer: address });

export const optionSeries = fc.record({
  option_type: fc.constantFrom<0 | 1>(0, 1),
  strike_wad: uint(144n),
  expiry_timestamp: uint40,
  start_exercise_timestamp: uint40,
});

/** `count` values from a fixed seed: the same inputs on every run, so a failure reproduces. */
export const sample = <T>(arb: fc.Arbitrary<T>, count: number, seed: number): T[] => fc.sample(arb, { numRuns: count, seed });
