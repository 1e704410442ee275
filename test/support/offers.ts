import type { PrivateKeyAccount } from 'viem/accounts';
import { jsonLegToLeg, packageOfferTypedData, type IntentJson, type PackageOffer } from '../../shared/protocol';

export interface QuoteLike {
  id: string;
  chain_id: number;
  taker_address_hash: `0x${string}`;
  expires_at: string;
  legs: IntentJson[];
}

let nonce = BigInt(Date.now()) * 1000n;

/**
 * A maker's package offer on a quote, signed with the typed data clients import from
 * shared/protocol. `edit` changes the JSON body after signing (to test tampering).
 */
export async function signedOffer(
  quote: QuoteLike,
  signer: PrivateKeyAccount,
  opts: { mothership: `0x${string}`; premiumToken: `0x${string}`; maker?: `0x${string}`; premium?: bigint; makerPaysTaker?: boolean; deadline?: number; nonce?: bigint },
): Promise<Record<string, unknown>> {
  const offer: PackageOffer = {
    takerAddressHash: quote.taker_address_hash,
    legs: quote.legs.map(jsonLegToLeg),
    packagePremium: opts.premium ?? 125_000_000n,
    makerPaysTaker: opts.makerPaysTaker ?? false,
    premiumToken: opts.premiumToken,
    maker: opts.maker ?? signer.address,
    nonce: opts.nonce ?? ++nonce,
    deadline: opts.deadline ?? Math.floor(Date.parse(quote.expires_at) / 1000),
  };
  const signature = await signer.signTypedData(packageOfferTypedData(quote.chain_id, opts.mothership, offer));
  return {
    offer_type: 'package',
    package_premium: offer.packagePremium.toString(),
    maker_pays_taker: offer.makerPaysTaker,
    taker_address_hash: offer.takerAddressHash,
    premium_token: offer.premiumToken,
    legs: quote.legs.map((l) => ({
      pair6909_contract: l.pair6909_contract,
      option_type: l.option_type,
      structure: l.structure,
      start_exercise_timestamp: l.start_exercise_timestamp,
      expiry_timestamp: l.expiry_timestamp,
      strike_wad: l.strike_wad,
      amount: l.amount,
    })),
    maker: offer.maker,
    nonce: offer.nonce.toString(),
    deadline: offer.deadline,
    signature,
  };
}
