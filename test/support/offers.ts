import type { PrivateKeyAccount } from 'viem/accounts';
import { signPackageOffer } from '../../client/src';
import type { IntentJson } from '../../shared/protocol';

export interface QuoteLike {
  id: string;
  chain_id: number;
  taker_address_hash: `0x${string}`;
  expires_at: string;
  legs: IntentJson[];
}

let nonce = BigInt(Date.now()) * 1000n;

/**
 * A maker's package offer on a quote, signed by the client package (the typed data of
 * shared/protocol). `edit` changes the JSON body after signing (to test tampering).
 */
export async function signedOffer(
  quote: QuoteLike,
  signer: PrivateKeyAccount,
  opts: {
    mothership: `0x${string}`;
    premiumToken: `0x${string}`;
    maker?: `0x${string}`;
    premium?: bigint;
    makerPaysTaker?: boolean;
    deadline?: number;
    nonce?: bigint;
  },
): Promise<Record<string, unknown>> {
  return signPackageOffer(signer, {
    chainId: quote.chain_id,
    mothership: opts.mothership,
    takerAddressHash: quote.taker_address_hash,
    legs: quote.legs,
    packagePremium: opts.premium ?? 125_000_000n,
    makerPaysTaker: opts.makerPaysTaker ?? false,
    premiumToken: opts.premiumToken,
    maker: opts.maker ?? signer.address,
    nonce: opts.nonce ?? ++nonce,
    deadline: opts.deadline ?? Math.floor(Date.parse(quote.expires_at) / 1000),
  });
}
