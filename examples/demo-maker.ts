import type { PrivateKeyAccount } from 'viem/accounts';
import { RfqSocket, signPackageOffer, type MakerEvents, type MakerRfqRequest, type Offer, type RfqClient } from '../client/src';
import { log } from './console-log';

export interface DemoMakerOptions {
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
 * The maker inside `npm run demo` (and several end-to-end tests): the typical maker loop from the
 * spec, nothing more. It signs in (its wallet must already be in a maker organization), registers
 * premium, joins the chain's request feed, and answers each rfq_request with an EIP-712-signed
 * package offer priced by `price`. The maker bot to run on its own is examples/maker-bot.ts.
 */
export async function runDemoMaker(o: DemoMakerOptions): Promise<{ socket: RfqSocket; stop: () => Promise<void> }> {
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
