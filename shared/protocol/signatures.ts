import { getAddress, hashTypedData, keccak256, stringToBytes, type Address, type Hex } from 'viem';
import { z } from 'zod';
import { parseOrThrow } from '../platform/validation';
import { recoverDigestSigner } from './ecdsa';
import {
  dutchAwardTypedData,
  dutchFillTypedData,
  exclusiveFillTypedData,
  packageOfferTypedData,
  type DutchAward,
  type DutchFillRequest,
  type ExclusiveFill,
  type PackageOffer,
} from '../../wire/src/protocol/typed-data';

/** Where a typed structure is verified: the chain and the mothership address. */
export interface SigningContext {
  chainId: number;
  mothership: Address;
}

const SIGNATURE_FORMAT = 'must be a 0x-prefixed 65-byte hex signature (r, s, v)';

/** secp256k1's group order n. */
export const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
/** n / 2: the largest `s` the contracts accept (Mothership._recover and OptionPair._recover). */
export const SECP256K1_HALF_N = SECP256K1_N / 2n;

/**
 * Why a 65-byte ECDSA signature (r ‖ s ‖ v) would be refused by the contracts' `_recover`, or
 * null when it is canonical: exactly 65 bytes, `s` in the lower half of the curve order (no
 * malleable twin), `v` one of 27/28 (or 0/1, which the contracts read as 27/28), and r, s
 * not zero. The one rule every place that takes an ECDSA signature applies, so what the API
 * accepts is what the chain will accept.
 */
export function signatureProblem(signature: string): string | null {
  if (!/^0x[0-9a-fA-F]{130}$/.test(signature)) return SIGNATURE_FORMAT;
  const r = BigInt(`0x${signature.slice(2, 66)}`);
  const s = BigInt(`0x${signature.slice(66, 130)}`);
  const v = parseInt(signature.slice(130, 132), 16);
  if (r === 0n || s === 0n) return 'r and s must not be zero';
  if (s > SECP256K1_HALF_N)
    return "has a high s (s > n/2), which the contracts refuse: use the low-s form (s' = n - s, v flipped) that every standard signer produces";
  if (v !== 27 && v !== 28 && v !== 0 && v !== 1) return `has v = ${v}: v must be 27 or 28 (0 or 1 accepted as 27 or 28)`;
  return null;
}

/** True when the signature is 65 bytes, low-s and v is 27/28 (or 0/1). */
export function isCanonicalSignature(signature: string): boolean {
  return signatureProblem(signature) === null;
}

/** A request field holding an ECDSA signature the contracts will accept (see signatureProblem). */
export const canonicalSignatureSchema = z
  .string({ message: SIGNATURE_FORMAT })
  .regex(/^0x[0-9a-fA-F]{130}$/, SIGNATURE_FORMAT)
  .superRefine((v, ctx) => {
    const problem = /^0x[0-9a-fA-F]{130}$/.test(v) ? signatureProblem(v) : null;
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

/** 400 naming `field` unless `signature` is canonical (see signatureProblem). */
export function assertCanonicalSignature(signature: string, field: string): void {
  parseOrThrow(canonicalSignatureSchema, signature, field);
}

/** EIP-712 digest of a Dutch request (equals the mothership's digestDutchFillRequest). */
export function dutchFillDigest(ctx: SigningContext, request: DutchFillRequest): Hex {
  return hashTypedData(dutchFillTypedData(ctx.chainId, ctx.mothership, request));
}

/** EIP-712 digest of a Dutch award (equals the mothership's digestDutchAward). */
export function dutchAwardDigest(ctx: SigningContext, award: DutchAward): Hex {
  return hashTypedData(dutchAwardTypedData(ctx.chainId, ctx.mothership, award));
}

/** The address that signed a Dutch award (a registered auctioneer, when valid). */
export function recoverDutchAwardSigner(ctx: SigningContext, award: DutchAward, signature: Hex): Promise<Address> {
  return recoverDigestSigner(dutchAwardDigest(ctx, award), signature);
}

/** EIP-712 digest of a package offer (equals the mothership's digestPackageOffer). */
export function packageOfferDigest(ctx: SigningContext, offer: PackageOffer): Hex {
  return hashTypedData(packageOfferTypedData(ctx.chainId, ctx.mothership, offer));
}

/** EIP-712 digest of an exclusive fill (equals the mothership's digestExclusiveFill). */
export function exclusiveFillDigest(ctx: SigningContext, fill: ExclusiveFill): Hex {
  return hashTypedData(exclusiveFillTypedData(ctx.chainId, ctx.mothership, fill));
}

/** The address that signed a Dutch request (the taker, when valid). */
export function recoverDutchFillSigner(ctx: SigningContext, request: DutchFillRequest, signature: Hex): Promise<Address> {
  return recoverDigestSigner(dutchFillDigest(ctx, request), signature);
}

/** The address that signed a package offer (must equal offer.maker). */
export function recoverPackageOfferSigner(ctx: SigningContext, offer: PackageOffer, signature: Hex): Promise<Address> {
  return recoverDigestSigner(packageOfferDigest(ctx, offer), signature);
}

/** The address that signed an exclusive fill (must equal the API's signer). */
export function recoverExclusiveFillSigner(ctx: SigningContext, fill: ExclusiveFill, signature: Hex): Promise<Address> {
  return recoverDigestSigner(exclusiveFillDigest(ctx, fill), signature);
}

/** Whether `signature` over the typed data recovers to `expected`; a malformed signature is false. */
async function signedBy(recover: () => Promise<Address>, expected: Address): Promise<boolean> {
  try {
    return (await recover()) === getAddress(expected);
  } catch {
    return false;
  }
}

/** True when the offer is signed by its own `maker`. */
export function isPackageOfferSignedByMaker(ctx: SigningContext, offer: PackageOffer, signature: Hex): Promise<boolean> {
  return signedBy(() => recoverPackageOfferSigner(ctx, offer, signature), offer.maker);
}

/** True when the Dutch request is signed by `taker`. */
export function isDutchFillSignedBy(ctx: SigningContext, request: DutchFillRequest, signature: Hex, taker: Address): Promise<boolean> {
  return signedBy(() => recoverDutchFillSigner(ctx, request, signature), taker);
}

/** True when the exclusive fill is signed by `signer` (the API's key). */
export function isExclusiveFillSignedBy(ctx: SigningContext, fill: ExclusiveFill, signature: Hex, signer: Address): Promise<boolean> {
  return signedBy(() => recoverExclusiveFillSigner(ctx, fill, signature), signer);
}

/** The bytes32 form of an API identifier (order id, exclusive fill id): keccak256 of its UTF-8 text. */
export function apiIdToBytes32(id: string): Hex {
  if (id.length === 0) throw new RangeError('an id must not be empty');
  return keccak256(stringToBytes(id));
}
