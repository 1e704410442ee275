import { createPublicClient, createWalletClient, decodeEventLog, http, zeroAddress, type Hex } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { loadArtifact } from '../dev/contract-artifacts';
import {
  jsonLegToLeg,
  RfqSocket,
  type CreatedQuote,
  type QuoteRequest,
  type RfqClient,
  type RfqOfferEvent,
  type TakerEvents,
  type TakerRfqResult,
} from '../client/src';
import { log } from './console-log';

export interface TakerOptions {
  client: RfqClient;
  account: PrivateKeyAccount;
  chainId: number;
  rpcUrl: string;
  mothership: `0x${string}`;
  pair: `0x${string}`;
  timeoutMs?: number;
  /**
   * How long the taker keeps listening after the first offer before it takes the best one (2 s by
   * default): makers answer at their own pace, and the first to answer is not always the cheapest.
   */
  offerWindowMs?: number;
  /** Offers to wait for before the window starts (1 by default; `timeoutMs` bounds the wait). */
  minOffers?: number;
}

/** What an offer costs the taker in its premium token: the premium it pays, or minus what the maker pays it. */
const cost = (o: RfqOfferEvent) => (o.maker_pays_taker ? -1n : 1n) * BigInt(o.package_premium);

/**
 * The best offer for the taker: the lowest cost among the offers in the first offer's premium
 * token (amounts in different tokens do not compare); the earlier offer on a tie.
 */
export function bestOffer(offers: readonly RfqOfferEvent[]): RfqOfferEvent {
  if (offers.length === 0) throw new Error('no offer to choose from');
  const token = offers[0].premium_token.toLowerCase();
  return offers.filter((o) => o.premium_token.toLowerCase() === token).reduce((best, o) => (cost(o) < cost(best) ? o : best));
}

/** A call butterfly on the pair, expiring in a day: 2500 / 3000 (2x) / 3500. */
function butterfly(pair: `0x${string}`): QuoteRequest['intents'] {
  const expiry = Math.floor(Date.now() / 1000) + 86400;
  const leg = (structure: 0 | 1, strike: number, amount: bigint) => ({
    pair6909_contract: pair,
    option_type: 'call' as const,
    structure,
    start_exercise_timestamp: 0,
    expiry_timestamp: expiry,
    strike_wad: (BigInt(strike) * 10n ** 18n).toString(),
    amount: amount.toString(),
  });
  return [leg(0, 2500, 10n ** 18n), leg(1, 3000, 2n * 10n ** 18n), leg(0, 3500, 10n ** 18n)];
}

/**
 * The taker side: request a butterfly, join the private stream (replaying from seq 0 so an
 * early offer is never missed), listen for `offerWindowMs` after the first offer, take the best
 * one (`bestOffer`) and settle it on chain through the mothership's executeFixedPackageIntent.
 */
export async function runTaker(o: TakerOptions): Promise<{ quoteId: string; txHash: Hex; offer: RfqOfferEvent }> {
  const created = await o.client.createQuote({
    chain_id: o.chainId,
    taker_address: o.account.address,
    polarity: 'b_is_buy',
    expires_in: 120,
    intents: butterfly(o.pair),
  });
  const { quote } = created;
  log('taker', `quote ${quote.id} created`, { strategy: quote.strategy, directions: quote.directions });

  const socket = new RfqSocket({ url: o.client.socketUrl });
  try {
    return await settle(o, created, socket);
  } finally {
    await socket.disconnect();
  }
}

async function settle(o: TakerOptions, created: CreatedQuote, socket: RfqSocket): Promise<{ quoteId: string; txHash: Hex; offer: RfqOfferEvent }> {
  const { quote } = created;
  let onResult: (r: TakerRfqResult) => void = () => undefined;
  const filled = new Promise<TakerRfqResult>((resolve) => (onResult = resolve));
  const offers: RfqOfferEvent[] = [];
  const wanted = o.minOffers ?? 1;
  let onEnough: () => void = () => undefined;
  const enough = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${offers.length} offer(s) arrived in time, ${wanted} wanted`)), o.timeoutMs ?? 30000).unref();
    onEnough = () => {
      clearTimeout(timer);
      resolve();
    };
  });
  const onOffer = (offer: RfqOfferEvent) => {
    offers.push(offer);
    log('taker', `offer from ${offer.maker}`, { premium: offer.package_premium, maker_pays_taker: offer.maker_pays_taker });
    if (offers.length >= wanted) onEnough();
  };
  // The private stream replays from its first event, so an offer made before the join is not missed.
  await socket.subscribe<TakerEvents>(created.topic, { on: { rfq_offer: onOffer, rfq_result: (r) => onResult(r) } });
  await enough;
  // Other makers may still be pricing: the first offer is not always the best.
  await new Promise((r) => setTimeout(r, o.offerWindowMs ?? 2000));
  const offer = bestOffer(offers);
  log('taker', `taking the best of ${offers.length} offer(s): ${offer.package_premium} from ${offer.maker}`);

  const mothership = loadArtifact('Mothership');
  const chain = { id: o.chainId, name: 'local', nativeCurrency: { name: 'ETH', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [o.rpcUrl] } } };
  const wallet = createWalletClient({ account: o.account, chain, transport: http(o.rpcUrl) });
  const client = createPublicClient({ chain, transport: http(o.rpcUrl) });
  const legs = quote.legs.map(jsonLegToLeg);
  const txHash = await wallet.writeContract({
    address: o.mothership,
    abi: mothership.abi,
    functionName: 'executeFixedPackageIntent',
    args: [
      {
        takerAddressHash: quote.taker_address_hash as Hex,
        legs,
        packagePremium: BigInt(offer.package_premium),
        makerPaysTaker: offer.maker_pays_taker,
        premiumToken: offer.premium_token as `0x${string}`,
        maker: offer.maker as `0x${string}`,
        nonce: BigInt(offer.nonce),
        deadline: offer.deadline,
      },
      offer.signature as Hex,
      quote.taker_salt as Hex,
      quote.directions,
      zeroAddress,
    ],
  });
  const receipt = await client.waitForTransactionReceipt({ hash: txHash });
  if (receipt.status !== 'success') throw new Error(`settlement reverted: ${txHash}`);
  const executed = receipt.logs
    .map((l) => {
      try {
        return decodeEventLog({ abi: mothership.abi, data: l.data, topics: l.topics });
      } catch {
        return null;
      }
    })
    .find((e) => e?.eventName === 'PackageExecuted');
  if (!executed) throw new Error('no PackageExecuted event in the settlement receipt');
  log('taker', `settled on chain: PackageExecuted in block ${receipt.blockNumber}`, { tx: txHash });

  // The indexer sees the settlement, marks the quote filled and tells the taker's stream.
  const result = await Promise.race([
    filled,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error('no rfq_result: is the indexer role running?')), o.timeoutMs ?? 30000).unref()),
  ]);
  if (result.state !== 'filled' || result.fill_tx_hash !== txHash) throw new Error(`unexpected result ${JSON.stringify(result)}`);
  log('taker', 'rfq_result: quote filled', { tx: result.fill_tx_hash });
  return { quoteId: quote.id, txHash, offer };
}
