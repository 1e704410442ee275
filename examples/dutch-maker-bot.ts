import { createPublicClient, createWalletClient, http, type Hex } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { loadArtifact } from '../dev/contract-artifacts';
import { dutchFillArgs, RfqClient, RfqSocket, type AwardJson, type DutchRequestJson } from '../client/src';
import { log } from './console-log';

export interface DutchMakerOptions {
  client: RfqClient;
  account: PrivateKeyAccount;
  name: string;
  chainId: number;
  rpcUrl: string;
  mothership: `0x${string}`;
  /** The improvement this bot bids on each side, in bps. */
  bid: { buy_override_bps: number; sell_override_bps: number };
  /** Every message the bot's socket receives (tests scan these for leaks). */
  onMessage?: (topic: string, event: string, payload: unknown) => void;
}

type Payload = Record<string, unknown> & { quote_id: string };

/**
 * Sends the fill, again while the chain says `AwardNotYet`: the award's `not_before` is the
 * competition's end by the service's clock, and a block mined in that same second (or a gas
 * estimate against it) can still be a moment behind. Gives up at the end of the exclusive window.
 */
async function sendWhenDue(award: Payload, send: () => Promise<Hex>): Promise<Hex> {
  const until = Date.parse(String(award.exclusive_ends_at));
  for (;;) {
    try {
      return await send();
    } catch (err) {
      if (!/AwardNotYet/.test((err as Error).message) || Date.now() > until) throw err;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

/**
 * A Dutch maker: bids both sides on every competing request of the feed, and when it wins (a
 * `dutch_award` on its own topic, the signed award naming its wallet as filler) fills the
 * request on the mothership from that wallet: only that caller gets the winning price.
 */
export async function runDutchMaker(o: DutchMakerOptions): Promise<{ stop: () => Promise<void>; fills: Promise<Hex> }> {
  const { token } = await o.client.signIn(o.account);
  const maker = o.client.as(token);
  const reg = await maker.registerPremium(o.chainId);
  const socket = new RfqSocket({ url: o.client.socketUrl, onMessage: o.onMessage });
  const chain = { id: o.chainId, name: 'local', nativeCurrency: { name: 'ETH', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [o.rpcUrl] } } };
  const wallet = createWalletClient({ account: o.account, chain, transport: http(o.rpcUrl) });
  const reader = createPublicClient({ chain, transport: http(o.rpcUrl) });
  const abi = loadArtifact('Mothership').abi;

  let filled: (tx: Hex) => void = () => undefined;
  let failed: (err: Error) => void = () => undefined;
  const fills = new Promise<Hex>((resolve, reject) => {
    filled = resolve;
    failed = reject;
  });
  fills.catch(() => undefined);

  const fill = async (award: Payload) => {
    const args = dutchFillArgs({
      dutch_request: award.dutch_request as DutchRequestJson,
      taker_signature: String(award.taker_signature),
      directions: award.directions as number[],
      award: award.award as AwardJson,
    });
    const tx = await sendWhenDue(award, () =>
      wallet.writeContract({ address: o.mothership, abi, functionName: 'executeDutchFill', args: args as unknown as unknown[], chain }),
    );
    const receipt = await reader.waitForTransactionReceipt({ hash: tx });
    if (receipt.status !== 'success') throw new Error(`Dutch fill reverted: ${tx}`);
    log(o.name, `filled ${award.quote_id} on chain during its exclusive window`, { tx });
    filled(tx);
  };

  await socket.subscribe<Record<string, Payload>>(reg.quotes_requests_topic, {
    params: { token },
    on: {
      rfq_request: (req) => {
        if (req.dutch_phase !== 'competing') return;
        void maker
          .submitDutchBid(req.quote_id, o.bid)
          .then(() => log(o.name, `bid on ${req.strategy} ${req.quote_id}`, o.bid))
          .catch((err: unknown) => log(o.name, `bid failed: ${(err as Error).message}`));
      },
    },
  });
  await socket.subscribe<Record<string, Payload>>(`rfq_maker:${o.account.address}`, {
    params: { token },
    on: {
      dutch_award: (award) => {
        log(o.name, `won ${award.quote_id}: exclusive until ${String(award.exclusive_ends_at)}`);
        void fill(award).catch((err: unknown) => failed(err as Error));
      },
      rfq_result: (r) => log(o.name, `quote ${r.quote_id} is ${String(r.state)}`),
    },
  });
  log(o.name, `bidding on ${reg.quotes_requests_topic}`, { maker: o.account.address });
  return { stop: () => socket.disconnect(), fills };
}
