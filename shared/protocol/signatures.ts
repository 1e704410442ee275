import { getAddress, hashTypedData, keccak256, recoverTypedDataAddress, stringToBytes, type Address, type Hex } from 'viem';
import {
  dutchAwardTypedData,
  dutchFillTypedData,
  exclusiveFillTypedData,
  packageOfferTypedData,
  type DutchAward,
  type DutchFillRequest,
  type ExclusiveFill,
  type PackageOffer,
} from './typed-data';

/** Where a typed structure is verified: the chain and the mothership address. */
export interface SigningContext {
  chainId: number;
  mothership: Address;
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
  return recoverTypedDataAddress({ ...dutchAwardTypedData(ctx.chainId, ctx.mothership, award), signature });
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
  return recoverTypedDataAddress({ ...dutchFillTypedData(ctx.chainId, ctx.mothership, request), signature });
}

/** The address that signed a package offer (must equal offer.maker). */
export function recoverPackageOfferSigner(ctx: SigningContext, offer: PackageOffer, signature: Hex): Promise<Address> {
  return recoverTypedDataAddress({ ...packageOfferTypedData(ctx.chainId, ctx.mothership, offer), signature });
}

/** The address that signed an exclusive fill (must equal the API's signer). */
export function recoverExclusiveFillSigner(ctx: SigningContext, fill: ExclusiveFill, signature: Hex): Promise<Address> {
  return recoverTypedDataAddress({ ...exclusiveFillTypedData(ctx.chainId, ctx.mothership, fill), signature });
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
