import { createPublicClient, createWalletClient, decodeEventLog, http, zeroAddress, type Hex } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { loadArtifact } from '../dev/contract-artifacts';
import { jsonLegToLeg, type IntentJson } from '../shared/protocol';
import { ApiClient, connectSocket, join, log } from './lib';

interface CreatedQuote {
  quote: { id: string; directions: number[]; taker_salt: Hex; taker_address_hash: Hex; expires_at: string; strategy: string; legs: IntentJson[] };
  stream_token: string;
  topic: string;
}

interface Offer {
  offer_id: string;
  maker: `0x${string}`;
  package_premium: string;
  maker_pays_taker: boolean;
  premium_token: `0x${string}`;
  nonce: string;
  deadline: number;
  signature: Hex;
}

export interface TakerOptions {
  api: ApiClient;
  account: PrivateKeyAccount;
  chainId: number;
  rpcUrl: string;
  mothership: `0x${string}`;
  pair: `0x${string}`;
  timeoutMs?: number;
}

/** A call butterfly on the pair, expiring in a day: 2500 / 3000 (2x) / 3500. */
function butterfly(pair: `0x${string}`) {
  const expiry = Math.floor(Date.now() / 1000) + 86400;
  const leg = (structure: number, strike: number, amount: bigint) => ({
    pair6909_contract: pair,
    option_type: 'call',
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
 * early offer is never missed), take the first offer and settle it on chain through the
 * mothership's executeFixedPackageIntent.
 */
export async function runTaker(o: TakerOptions): Promise<{ quoteId: string; txHash: Hex; offer: Offer }> {
  const created = await o.api.call<CreatedQuote>('POST', '/api/quote', {
    chain_id: o.chainId,
    taker_address: o.account.address,
    polarity: 'b_is_buy',
    expires_in: 120,
    intents: butterfly(o.pair),
  });
  const { quote } = created;
  log('taker', `quote ${quote.id} created`, { strategy: quote.strategy, directions: quote.directions });

  const socket = connectSocket(o.api);
  try {
    return await settle(o, created, socket);
  } finally {
    socket.disconnect();
  }
}

async function settle(o: TakerOptions, created: CreatedQuote, socket: ReturnType<typeof connectSocket>): Promise<{ quoteId: string; txHash: Hex; offer: Offer }> {
  const { quote } = created;
  const channel = await join(socket, created.topic, { last_seq: 0 });
  const filled = new Promise<{ state: string; fill_tx_hash: string | null }>((resolve) => {
    channel.on('rfq_result', (payload: { state: string; fill_tx_hash: string | null }) => resolve(payload));
  });
  const offer = await new Promise<Offer>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no offer arrived in time')), o.timeoutMs ?? 30000).unref();
    channel.on('rfq_offer', (payload: Offer) => {
      clearTimeout(timer);
      resolve(payload);
    });
  });
  log('taker', `offer from ${offer.maker}`, { premium: offer.package_premium });

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
        takerAddressHash: quote.taker_address_hash,
        legs,
        packagePremium: BigInt(offer.package_premium),
        makerPaysTaker: offer.maker_pays_taker,
        premiumToken: offer.premium_token,
        maker: offer.maker,
        nonce: BigInt(offer.nonce),
        deadline: offer.deadline,
      },
      offer.signature,
      quote.taker_salt,
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
