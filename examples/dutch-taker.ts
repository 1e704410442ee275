import type { PrivateKeyAccount } from 'viem/accounts';
import { brokeredRequest, RfqSocket, signDutchRequest, type RfqClient } from '../client/src';
import { log } from './console-log';

export interface DutchTakerOptions {
  client: RfqClient;
  account: PrivateKeyAccount;
  chainId: number;
  mothership: `0x${string}`;
  pair: `0x${string}`;
  /** The pair's tokens: the request's token list and premium token must be the pair's. */
  token0: `0x${string}`;
  token1: `0x${string}`;
  premiumToken: `0x${string}`;
  competeMs?: number;
  timeoutMs?: number;
}

export interface DutchOutcome {
  quoteId: string;
  /** Phases heard on the taker's stream, in order. */
  phases: string[];
  bids: { maker: string; side: string; override_bps: number }[];
  winner: string | null;
  result: Record<string, unknown>;
}

/**
 * The taker: signs a Dutch request to buy a call spread (paying 100 rising to 200 USDC over two
 * minutes), creates the auction, and listens to its stream until the result.
 */
export async function runDutchTaker(o: DutchTakerOptions): Promise<DutchOutcome> {
  const now = Math.floor(Date.now() / 1000);
  const expiry = now + 86_400;
  const leg = (structure: 0 | 1, strike: number) => ({
    pair6909_contract: o.pair,
    option_type: 0 as const,
    structure,
    start_exercise_timestamp: 0,
    expiry_timestamp: expiry,
    strike_wad: (BigInt(strike) * 10n ** 18n).toString(),
    amount: (10n ** 18n).toString(),
  });
  const directions: (0 | 1)[] = [1, 0];
  const dutch_request = brokeredRequest(
    {
      intents: [leg(0, 3000), leg(1, 3500)],
      tokens: [{ token0: o.token0, token1: o.token1, premium_token: o.premiumToken }],
      dutch_premium: {
        token: o.premiumToken,
        maker_pays_taker: false,
        start_premium: '100000000',
        end_premium: '200000000',
        decay_rate: '0',
        auction_start: now,
      },
      auction_end: now + 120,
      taker_nonce: String(Date.now()),
    },
    directions,
    o.mothership,
  );
  const taker_signature = await signDutchRequest(o.account, { chainId: o.chainId, mothership: o.mothership, request: dutch_request });
  const created = await o.client.createDutchQuote({
    chain_id: o.chainId,
    taker_address: o.account.address,
    offer_formats: 'dutch_only',
    directions,
    expires_in: 120,
    compete_ms: o.competeMs ?? 2000,
    exclusive_ms: 20_000,
    taker_signature,
    dutch_request,
  });
  log('taker', `Dutch auction ${created.quote.id} created`, { phase: created.quote.dutch_phase, competes_until: created.quote.compete_ends_at });

  const outcome: DutchOutcome = { quoteId: created.quote.id, phases: [], bids: [], winner: null, result: {} };
  const socket = new RfqSocket({ url: o.client.socketUrl });
  try {
    const result = await new Promise<Record<string, unknown>>((resolve, reject) => {
      setTimeout(() => reject(new Error(`no result in time; heard ${outcome.phases.join(', ')}`)), o.timeoutMs ?? 60_000).unref();
      void socket
        .subscribe<Record<string, Record<string, unknown>>>(created.topic, {
          on: {
            rfq_request: (r) => {
              outcome.phases.push(String(r.dutch_phase));
              if (r.winner) outcome.winner = String(r.winner);
              log('taker', `phase ${String(r.dutch_phase)}`, r.winner ? { winner: r.winner } : {});
            },
            rfq_offer: (b) => {
              outcome.bids.push({ maker: String(b.maker), side: String(b.side), override_bps: Number(b.override_bps) });
              log('taker', `bid from ${String(b.maker)}`, { side: b.side, override_bps: b.override_bps });
            },
            rfq_result: (r) => {
              if (r.state === 'filled') resolve(r);
            },
          },
        })
        .catch(reject);
    });
    outcome.result = result;
    log('taker', 'rfq_result: quote filled', { tx: result.fill_tx_hash });
    return outcome;
  } finally {
    await socket.disconnect();
  }
}
