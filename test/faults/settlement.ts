import { getAddress, type Hex } from 'viem';
import { mothershipAbi } from '../../shared/chain/abis';
import { jsonLegToLeg, type IntentJson, type PackageOffer } from '../../shared/protocol';
import { randomAddress } from '../support/fixtures';
import { signedOffer } from '../support/offers';
import { intents, quoteBody } from '../support/quotes';
import { CHAIN_ID, takerWallet, type Stack } from './fault-stack';
import type { CreatedQuote } from './quote-load';

interface QuoteJson {
  id: string;
  chain_id: number;
  taker_address_hash: Hex;
  expires_at: string;
  taker_salt: Hex;
  directions: number[];
  legs: IntentJson[];
}

/** A quote with the maker's offer posted, ready for its taker to settle on chain. */
export interface PreparedSettlement {
  quote: CreatedQuote;
  /** The taker's settlement transaction, sent to the node directly (not through the indexer's proxy). */
  execute(): Promise<void>;
}

/**
 * The standard RFQ path for one quote up to settlement: a taker (a funded Hardhat account)
 * creates it and the maker posts a signed package offer through the API.
 */
export async function prepareSettlement(stack: Stack, takerIndex: number, expiresIn: number): Promise<PreparedSettlement> {
  const { account, wallet, client } = takerWallet(stack, takerIndex);
  const referrer = randomAddress();
  const legs = [{ type: 'call' as const, structure: 0 as const, strike: 3100n }];
  const created = await stack.api.call<{ quote: QuoteJson; stream_token: string }>(
    'POST',
    '/api/quote',
    quoteBody(account.address, legs, { referrer, expires_in: expiresIn, intents: intents(legs, { pair: stack.addresses.pair }) }),
  );
  const quote = created.quote;
  const offerBody = await signedOffer(quote, stack.maker.account, {
    mothership: stack.addresses.mothership,
    premiumToken: stack.addresses.usdc,
    premium: 1000n,
  });
  await stack.api.call('POST', `/api/quote/${quote.id}`, offerBody, { authorization: `Bearer ${stack.maker.token}` });

  const offer: PackageOffer = {
    takerAddressHash: quote.taker_address_hash,
    legs: quote.legs.map(jsonLegToLeg),
    packagePremium: BigInt(String(offerBody.package_premium)),
    makerPaysTaker: Boolean(offerBody.maker_pays_taker),
    premiumToken: getAddress(stack.addresses.usdc),
    maker: stack.maker.account.address,
    nonce: BigInt(String(offerBody.nonce)),
    deadline: Number(offerBody.deadline),
  };
  if (quote.chain_id !== CHAIN_ID) throw new Error(`quote on chain ${quote.chain_id}`);
  return {
    quote: { id: quote.id, streamToken: created.stream_token, taker: account.address, referrer, salt: quote.taker_salt },
    async execute() {
      const hash = await wallet.writeContract({
        address: stack.addresses.mothership,
        abi: mothershipAbi,
        functionName: 'executeFixedPackageIntent',
        args: [offer, offerBody.signature as Hex, quote.taker_salt, quote.directions, referrer],
      });
      const receipt = await client.waitForTransactionReceipt({ hash });
      if (receipt.status !== 'success') throw new Error(`settlement of quote ${quote.id} reverted`);
    },
  };
}

/** Creates, offers and settles one quote; the indexer must then fill it. */
export async function createAndSettle(stack: Stack, takerIndex: number, expiresIn: number): Promise<CreatedQuote> {
  const prepared = await prepareSettlement(stack, takerIndex, expiresIn);
  await prepared.execute();
  return prepared.quote;
}
