import type { Channel, Socket } from 'phoenix';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { jsonLegToLeg, packageOfferTypedData, type IntentJson, type PackageOffer } from '../shared/protocol';
import { ApiClient, connectSocket, join, log } from './lib';

interface RfqRequest {
  seq: number;
  quote_id: string;
  chain_id: number;
  strategy: string;
  directions: number[];
  taker_address_hash: `0x${string}`;
  expires_at: string;
  legs: (IntentJson & { direction: number })[];
}

export interface MakerBotOptions {
  api: ApiClient;
  account: PrivateKeyAccount;
  chainId: number;
  mothership: `0x${string}`;
  premiumToken: `0x${string}`;
  /** Called with each offer the bot posted. */
  onOffer?: (offer: Record<string, unknown>) => void;
  /** Called with every message the bot's socket receives (tests scan these for leaks). */
  onMessage?: (topic: string, event: string, payload: unknown) => void;
}

/**
 * A toy pricer: 2% of each leg's strike notional, in premium-token units (6 decimals), summed
 * over the package. A real maker prices from its own vol surface; the protocol only cares that
 * the offer it signs matches the quote.
 */
function price(req: RfqRequest): bigint {
  let total = 0n;
  for (const l of req.legs) total += (BigInt(l.strike_wad) * BigInt(l.amount)) / 10n ** 36n;
  return (total * 10n ** 6n * 2n) / 100n;
}

let nonce = BigInt(Date.now());

/**
 * The typical maker loop from the spec: sign in, register premium, join the chain's request
 * feed, and answer each rfq_request with an EIP-712-signed package offer.
 */
export async function runMakerBot(o: MakerBotOptions): Promise<{ socket: Socket; channel: Channel; stop: () => void }> {
  const token = await o.api.signIn(o.account);
  const auth = { authorization: `Bearer ${token}` };
  const reg = await o.api.call<{ quotes_requests_topic: string }>('POST', '/api/pubsub/premium', { chain_id: o.chainId }, auth);
  const socket = connectSocket(o.api);
  if (o.onMessage) {
    const seen = o.onMessage;
    socket.onMessage((raw: object) => {
      const m = raw as { topic: string; event: string; payload: unknown };
      seen(m.topic, m.event, m.payload);
    });
  }
  const channel = await join(socket, reg.quotes_requests_topic, { token });
  // Outcomes of this maker's own offers arrive on its private topic.
  await join(socket, `rfq_maker:${o.account.address}`, { token });
  log('maker', `listening on ${reg.quotes_requests_topic}`, { maker: o.account.address });

  channel.on('rfq_request', (req: RfqRequest) => {
    void (async () => {
      const offer: PackageOffer = {
        takerAddressHash: req.taker_address_hash,
        legs: req.legs.map(jsonLegToLeg),
        packagePremium: price(req),
        makerPaysTaker: false,
        premiumToken: o.premiumToken,
        maker: o.account.address,
        nonce: ++nonce,
        deadline: Math.floor(Date.parse(req.expires_at) / 1000),
      };
      const signature = await o.account.signTypedData(packageOfferTypedData(req.chain_id, o.mothership, offer));
      const body = {
        offer_type: 'package',
        package_premium: offer.packagePremium.toString(),
        maker_pays_taker: offer.makerPaysTaker,
        taker_address_hash: offer.takerAddressHash,
        premium_token: offer.premiumToken,
        legs: req.legs.map(({ direction: _, ...intent }) => intent),
        maker: offer.maker,
        nonce: offer.nonce.toString(),
        deadline: offer.deadline,
        signature,
      };
      const posted = await o.api.call<{ offer: Record<string, unknown> }>('POST', `/api/quote/${req.quote_id}`, body, auth);
      log('maker', `offered on ${req.strategy} ${req.quote_id}`, { premium: body.package_premium });
      o.onOffer?.(posted.offer);
    })().catch((err: unknown) => log('maker', `offer failed: ${(err as Error).message}`));
  });
  return { socket, channel, stop: () => socket.disconnect() };
}

if (require.main === module) {
  const key = process.env.MAKER_PRIVATE_KEY as `0x${string}` | undefined;
  if (!key) throw new Error('set MAKER_PRIVATE_KEY (a wallet of a maker organization) and BASE_URL');
  const api = new ApiClient(process.env.BASE_URL ?? 'http://127.0.0.1:8080');
  void (async () => {
    const { networks } = await api.call<{ networks: { chain_id: number; contracts: Record<string, `0x${string}`> }[] }>('GET', '/api/networks');
    const net = networks.find((n) => n.chain_id === Number(process.env.CHAIN_ID ?? 31337));
    if (!net) throw new Error('network not found');
    await runMakerBot({ api, account: privateKeyToAccount(key), chainId: net.chain_id, mothership: net.contracts.mothership, premiumToken: net.contracts.usdc });
  })();
}
