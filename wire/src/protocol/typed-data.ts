import { getAddress, type Address, type Hex, type TypedDataDomain } from 'viem';
import type { Leg } from './intents';

/**
 * Every EIP-712 definition of the protocol, in one place, so that clients sign exactly what
 * the server and the contracts verify. Field order is part of each type's hash: append-only
 * changes are still breaking, so any change here is a protocol version bump.
 */

export const DOMAIN_VERSION = '1';
/** Taker-signed Dutch requests; verifyingContract = the mothership. */
export const DUTCH_FILL_DOMAIN_NAME = 'DutchFill';
/** Maker-signed package offers; verifyingContract = the mothership. */
export const PACKAGE_OFFER_DOMAIN_NAME = 'Mothership';
/** API-signed exclusive fills; verifyingContract = the mothership. */
export const EXCLUSIVE_FILL_DOMAIN_NAME = 'ExclusiveFill';

export const LEG_TYPE = [
  { name: 'pair6909Contract', type: 'address' },
  { name: 'optionType', type: 'uint8' },
  { name: 'structure', type: 'uint8' },
  { name: 'startExerciseTimestamp', type: 'uint40' },
  { name: 'expiryTimestamp', type: 'uint40' },
  { name: 'strikeWad', type: 'uint144' },
  { name: 'amount', type: 'uint256' },
] as const;

export const DUTCH_FILL_REQUEST_TYPES = {
  DutchFillRequest: [
    { name: 'intents', type: 'Leg[]' },
    { name: 'tokens', type: 'TokenTriple[]' },
    { name: 'dutchPremium', type: 'DutchPremium' },
    { name: 'auctionEnd', type: 'uint40' },
    { name: 'makerAddressHash', type: 'bytes32' },
    { name: 'takerNonce', type: 'uint256' },
    { name: 'requiredAuthority', type: 'address' },
    { name: 'requiredDutchAuthority', type: 'address' },
    { name: 'referrer', type: 'address' },
  ],
  DutchPremium: [
    { name: 'token', type: 'address' },
    { name: 'makerPaysTaker', type: 'bool' },
    { name: 'startPremium', type: 'uint256' },
    { name: 'endPremium', type: 'uint256' },
    { name: 'decayRate', type: 'uint256' },
    { name: 'auctionStart', type: 'uint40' },
  ],
  Leg: LEG_TYPE,
  TokenTriple: [
    { name: 'token0', type: 'address' },
    { name: 'token1', type: 'address' },
    { name: 'premiumToken', type: 'address' },
  ],
} as const;

/** The auctioneer's signed award of a Dutch request (same domain as the request). */
export const DUTCH_AWARD_TYPES = {
  DutchAward: [
    { name: 'requestDigest', type: 'bytes32' },
    { name: 'filler', type: 'address' },
    { name: 'improvementBps', type: 'uint256' },
    { name: 'notBefore', type: 'uint40' },
    { name: 'exclusiveEnd', type: 'uint40' },
  ],
} as const;

export const PACKAGE_OFFER_TYPES = {
  PackageOffer: [
    { name: 'takerAddressHash', type: 'bytes32' },
    { name: 'legs', type: 'Leg[]' },
    { name: 'packagePremium', type: 'uint256' },
    { name: 'makerPaysTaker', type: 'bool' },
    { name: 'premiumToken', type: 'address' },
    { name: 'maker', type: 'address' },
    { name: 'nonce', type: 'uint256' },
    { name: 'deadline', type: 'uint40' },
  ],
  Leg: LEG_TYPE,
} as const;

export const EXCLUSIVE_FILL_TYPES = {
  ExclusiveFill: [
    { name: 'exclusiveFillId', type: 'bytes32' },
    { name: 'maker', type: 'address' },
    { name: 'orderIds', type: 'bytes32[]' },
    { name: 'rewardDestination', type: 'address' },
    { name: 'intentDataHash', type: 'bytes32' },
    { name: 'expireTime', type: 'uint40' },
  ],
} as const;

export interface TokenTriple {
  token0: Address;
  token1: Address;
  premiumToken: Address;
}

export interface DutchPremium {
  token: Address;
  makerPaysTaker: boolean;
  startPremium: bigint;
  endPremium: bigint;
  decayRate: bigint;
  auctionStart: number;
}

/** The on-chain DutchFillRequest struct; its snake_case JSON form is in dutch-request.ts. */
export interface DutchFillRequest {
  intents: Leg[];
  tokens: TokenTriple[];
  dutchPremium: DutchPremium;
  auctionEnd: number;
  makerAddressHash: Hex;
  takerNonce: bigint;
  requiredAuthority: Address;
  requiredDutchAuthority: Address;
  referrer: Address;
}

/**
 * The auctioneer's word at the end of a Dutch competition. `filler` is the address the winning
 * bid named to call executeDutchFill (the winning maker's wallet unless its bid named another):
 * only that caller fills at the winner's price during the exclusive window. The zero address
 * when no bid won (open to every filler).
 */
export interface DutchAward {
  /** EIP-712 digest of the DutchFillRequest it awards. */
  requestDigest: Hex;
  filler: Address;
  /** The winning bid's improvement over the curve price, on the taker's side. */
  improvementBps: bigint;
  /** Unix seconds: no fill before (the competition's end). */
  notBefore: number;
  /** Unix seconds: the last second of the winner's exclusivity. */
  exclusiveEnd: number;
}

/** The maker-signed package offer ("signed package request"). */
export interface PackageOffer {
  /** The quote's taker_address_hash, copied exactly. */
  takerAddressHash: Hex;
  legs: Leg[];
  /** Net premium of the whole package, in premium-token units. */
  packagePremium: bigint;
  /** false: the taker pays the maker (a debit); true: the maker pays the taker (a credit). */
  makerPaysTaker: boolean;
  premiumToken: Address;
  maker: Address;
  /** Per-maker replay guard; the mothership accepts each (maker, nonce) once. */
  nonce: bigint;
  /** Unix seconds after which the offer cannot settle. */
  deadline: number;
}

/** The API-signed grant of exclusive fill rights over some orders. */
export interface ExclusiveFill {
  exclusiveFillId: Hex;
  maker: Address;
  /** bytes32 ids of the orders covered (see apiIdToBytes32). */
  orderIds: Hex[];
  rewardDestination: Address;
  intentDataHash: Hex;
  expireTime: number;
}

function domain(name: string, chainId: number, verifyingContract: Address): TypedDataDomain {
  return { name, version: DOMAIN_VERSION, chainId, verifyingContract: getAddress(verifyingContract) };
}

/** EIP-712 domain of taker-signed Dutch requests. */
export const dutchFillDomain = (chainId: number, mothership: Address) => domain(DUTCH_FILL_DOMAIN_NAME, chainId, mothership);
/** EIP-712 domain of maker-signed package offers. */
export const packageOfferDomain = (chainId: number, mothership: Address) => domain(PACKAGE_OFFER_DOMAIN_NAME, chainId, mothership);
/** EIP-712 domain of API-signed exclusive fills. */
export const exclusiveFillDomain = (chainId: number, mothership: Address) => domain(EXCLUSIVE_FILL_DOMAIN_NAME, chainId, mothership);

/** Full typed data of a Dutch request, ready for signTypedData / hashTypedData. */
export function dutchFillTypedData(chainId: number, mothership: Address, message: DutchFillRequest) {
  return {
    domain: dutchFillDomain(chainId, mothership),
    types: DUTCH_FILL_REQUEST_TYPES,
    primaryType: 'DutchFillRequest' as const,
    message,
  };
}

/** Full typed data of a Dutch award, ready for signTypedData / hashTypedData. */
export function dutchAwardTypedData(chainId: number, mothership: Address, message: DutchAward) {
  return {
    domain: dutchFillDomain(chainId, mothership),
    types: DUTCH_AWARD_TYPES,
    primaryType: 'DutchAward' as const,
    message,
  };
}

/** Full typed data of a package offer, ready for signTypedData / hashTypedData. */
export function packageOfferTypedData(chainId: number, mothership: Address, message: PackageOffer) {
  return {
    domain: packageOfferDomain(chainId, mothership),
    types: PACKAGE_OFFER_TYPES,
    primaryType: 'PackageOffer' as const,
    message,
  };
}

/** Full typed data of an exclusive fill, ready for signTypedData / hashTypedData. */
export function exclusiveFillTypedData(chainId: number, mothership: Address, message: ExclusiveFill) {
  return {
    domain: exclusiveFillDomain(chainId, mothership),
    types: EXCLUSIVE_FILL_TYPES,
    primaryType: 'ExclusiveFill' as const,
    message,
  };
}

type TypeFields = readonly { readonly name: string; readonly type: string }[];

/** EIP-712 encodeType: the primary type, then every type it references in alphabetical order. */
export function eip712TypeString(types: Readonly<Record<string, TypeFields>>, primaryType: string): string {
  const found = new Set<string>();
  const visit = (name: string) => {
    if (found.has(name) || !types[name]) return;
    found.add(name);
    for (const f of types[name]) visit(f.type.replace(/\[\d*\]$/, ''));
  };
  visit(primaryType);
  found.delete(primaryType);
  const render = (name: string) => `${name}(${types[name].map((f) => `${f.type} ${f.name}`).join(',')})`;
  return [primaryType, ...[...found].sort()].map(render).join('');
}
