import type { LocalAccount } from 'viem/accounts';
import { jsonLegToLeg, type IntentJson } from '@options-rfq/wire';
import { packageOfferTypedData, PACKAGE_OFFER_TYPES, packageOfferDomain, type PackageOffer } from '@options-rfq/wire';
import type { PackageOfferRequest } from './api.types';

/*
 * EIP-712 for package offers: the very definitions the server verifies offers with
 * (shared/protocol/typed-data.ts), so a client can never sign a different type hash.
 */
export { packageOfferTypedData, packageOfferDomain, PACKAGE_OFFER_TYPES, jsonLegToLeg };
export type { PackageOffer, IntentJson };

/** A leg as quotes and rfq_request events carry it (numeric enums), with the taker's direction. */
export type QuotedLeg = Parameters<typeof jsonLegToLeg>[0] & { direction?: number };

export interface OfferTerms {
  chainId: number;
  /** The chain's mothership (GET /api/networks, `contracts.mothership`): the EIP-712 verifying contract. */
  mothership: `0x${string}`;
  /** The quote's `taker_address_hash`, copied exactly. */
  takerAddressHash: `0x${string}`;
  /** The quote's legs, as quoted. */
  legs: QuotedLeg[];
  packagePremium: bigint;
  makerPaysTaker?: boolean;
  premiumToken: `0x${string}`;
  maker: `0x${string}`;
  nonce: bigint;
  /** Unix seconds: not after the quote expires. */
  deadline: number;
}

/** The PackageOffer message the mothership and the API verify. */
export function packageOffer(t: OfferTerms): PackageOffer {
  return {
    takerAddressHash: t.takerAddressHash,
    legs: t.legs.map(jsonLegToLeg),
    packagePremium: t.packagePremium,
    makerPaysTaker: t.makerPaysTaker ?? false,
    premiumToken: t.premiumToken,
    maker: t.maker,
    nonce: t.nonce,
    deadline: t.deadline,
  };
}

/**
 * Signs a package offer with the maker's account and returns the body of
 * `POST /api/quote/:id`: the same terms, in the API's wire format, plus the signature.
 */
export async function signPackageOffer(account: Pick<LocalAccount, 'signTypedData'>, t: OfferTerms): Promise<PackageOfferRequest> {
  const offer = packageOffer(t);
  const signature = await account.signTypedData(packageOfferTypedData(t.chainId, t.mothership, offer));
  return {
    offer_type: 'package',
    package_premium: offer.packagePremium.toString(),
    maker_pays_taker: offer.makerPaysTaker,
    taker_address_hash: offer.takerAddressHash,
    premium_token: offer.premiumToken,
    // The body repeats the intents as quoted; the direction is the taker's, not part of a leg.
    legs: t.legs.map(({ direction: _direction, ...intent }) => intent) as PackageOfferRequest['legs'],
    maker: offer.maker,
    nonce: offer.nonce.toString(),
    deadline: offer.deadline,
    signature,
  };
}
