import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { networkContract, RfqClient, RfqSocket, signPackageOffer, type MakerEvents, type MakerRfqRequest, type Offer } from '../client/src';
import { log } from './log';

export interface MakerBotOptions {
  client: RfqClient;
  account: PrivateKeyAccount;
  chainId: number;
  mothership: `0x${string}`;
  premiumToken: `0x${string}`;
  /** Called with each offer the bot posted. */
  onOffer?: (offer: Offer) => void;
  /** Called with every message the bot's socket receives (tests scan these for leaks). */
  onMessage?: (topic: string, event: string, payload: unknown) => void;
}

/**
 * A toy pricer: 2% of each leg's strike notional, in premium-token units (6 decimals), summed
 * over the package. A real maker prices from its own vol surface; the protocol only cares that
 * the offer it signs matches the quote.
 */
function price(req: MakerRfqRequest): bigint {
  let total = 0n;
  for (const l of req.legs) total += (BigInt(l.strike_wad) * BigInt(l.amount)) / 10n ** 36n;
  return (total * 10n ** 6n * 2n) / 100n;
}

let nonce = BigInt(Date.now());

/**
 * The typical maker loop from the spec: sign in, register premium, join the chain's request
 * feed, and answer each rfq_request with an EIP-712-signed package offer.
 */
export async function runMakerBot(o: MakerBotOptions): Promise<{ socket: RfqSocket; stop: () => Promise<void> }> {
  const { token } = await o.client.signIn(o.account);
  const maker = o.client.as(token);
  const reg = await maker.registerPremium(o.chainId);
  const socket = new RfqSocket({ url: o.client.socketUrl, onMessage: o.onMessage });

  const offerOn = async (req: MakerRfqRequest) => {
    const body = await signPackageOffer(o.account, {
      chainId: req.chain_id,
      mothership: o.mothership,
      takerAddressHash: req.taker_address_hash as `0x${string}`,
      legs: req.legs,
      packagePremium: price(req),
      premiumToken: o.premiumToken,
      maker: o.account.address,
      nonce: ++nonce,
      deadline: Math.floor(Date.parse(req.expires_at) / 1000),
    });
    const posted = await maker.submitOffer(req.quote_id, body);
    log('maker', `offered on ${req.strategy} ${req.quote_id}`, { premium: body.package_premium });
    o.onOffer?.(posted.offer);
  };

  await socket.subscribe<MakerEvents>(reg.quotes_requests_topic, {
    params: { token },
    on: { rfq_request: (req) => void offerOn(req).catch((err: unknown) => log('maker', `offer failed: ${(err as Error).message}`)) },
  });
  // Outcomes of this maker's own offers arrive on its private topic.
  await socket.subscribe<MakerEvents>(`rfq_maker:${o.account.address}`, {
    params: { token },
    on: { rfq_result: (r) => log('maker', `quote ${r.quote_id} is ${r.state}`) },
  });
  log('maker', `listening on ${reg.quotes_requests_topic}`, { maker: o.account.address });
  return { socket, stop: () => socket.disconnect() };
}

if (require.main === module) {
  const key = process.env.MAKER_PRIVATE_KEY as `0x${string}` | undefined;
  if (!key) throw new Error('set MAKER_PRIVATE_KEY (a wallet of a maker organization) and BASE_URL');
  const client = new RfqClient({ baseUrl: process.env.BASE_URL ?? 'http://127.0.0.1:8080' });
  void (async () => {
    const { networks } = await client.networks();
    const net = networks.find((n) => n.chain_id === Number(process.env.CHAIN_ID ?? 31337));
    if (!net) throw new Error('network not found');
    await runMakerBot({
      client,
      account: privateKeyToAccount(key),
      chainId: net.chain_id,
      mothership: networkContract(net, 'mothership'),
      premiumToken: networkContract(net, 'usdc'),
    });
  })();
}
