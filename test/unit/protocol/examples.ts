import { zeroAddress, type Address, type Hex } from 'viem';
import {
  apiIdToBytes32,
  directionsHash,
  takerAddressHash,
  type Direction,
  type DutchFillRequest,
  type ExclusiveFill,
  type Leg,
  type PackageOffer,
} from '../../../shared/protocol';

/**
 * The worked examples of docs/PROTOCOL.md. Addresses are the devchain's (deterministic) ones
 * and Hardhat's default accounts; vectors.test.ts pins every resulting hash.
 */
export const CHAIN_ID = 31337;
export const MOTHERSHIP: Address = '0xDc64a140Aa3E981100a9becA4E685f962f0cF6C9';
export const PAIR: Address = '0xf73bB65aC14A1A34e01EaF68ff5bb1e672ADc442';
export const WETH: Address = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
export const USDC: Address = '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512';
/** Hardhat account #1. */
export const MAKER: Address = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
export const MAKER_KEY: Hex = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';
/** Hardhat account #2. */
export const TAKER: Address = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
export const SALT: Hex = `0x${'11'.repeat(32)}`;
/** A bought capped call: structures [0, 1] with b_is_buy. */
export const DIRECTIONS: Direction[] = [1, 0];
/** 2026-01-01T00:00:00Z. */
export const EXPIRY = 1_767_225_600;

export const LEGS: Leg[] = [
  { pair6909Contract: PAIR, optionType: 0, structure: 0, startExerciseTimestamp: 0, expiryTimestamp: EXPIRY, strikeWad: 3_000_000_000n, amount: 10n ** 18n },
  { pair6909Contract: PAIR, optionType: 0, structure: 1, startExerciseTimestamp: 0, expiryTimestamp: EXPIRY, strikeWad: 3_500_000_000n, amount: 10n ** 18n },
];

export const TAKER_HASH = takerAddressHash(TAKER, SALT, DIRECTIONS, zeroAddress);

export const OFFER: PackageOffer = {
  takerAddressHash: TAKER_HASH,
  legs: LEGS,
  packagePremium: 120_000_000n,
  makerPaysTaker: false,
  premiumToken: USDC,
  maker: MAKER,
  nonce: 1n,
  deadline: EXPIRY - 600,
};

export const DUTCH: DutchFillRequest = {
  intents: LEGS,
  tokens: [{ token0: WETH, token1: USDC, premiumToken: USDC }],
  dutchPremium: {
    token: USDC,
    makerPaysTaker: false,
    startPremium: 150_000_000n,
    endPremium: 90_000_000n,
    decayRate: 100n,
    auctionStart: EXPIRY - 5_600,
  },
  auctionEnd: EXPIRY - 5_480,
  makerAddressHash: directionsHash(DIRECTIONS),
  takerNonce: 7n,
  requiredAuthority: zeroAddress,
  requiredDutchAuthority: MOTHERSHIP,
  referrer: zeroAddress,
};

export const EXCLUSIVE: ExclusiveFill = {
  exclusiveFillId: apiIdToBytes32('ef_01'),
  maker: MAKER,
  orderIds: [apiIdToBytes32('ord_1'), apiIdToBytes32('ord_2')],
  rewardDestination: MAKER,
  intentDataHash: `0x${'22'.repeat(32)}`,
  expireTime: EXPIRY - 5_570,
};
