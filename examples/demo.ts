import { privateKeyToAccount } from 'viem/accounts';
import { networkContract, RfqClient } from '../client/src';
import { runDemoMaker } from './demo-maker';
import { log } from './console-log';
import { ensureMakerOrganization } from './maker-organization';
import { runTaker } from './taker';

/** Hardhat's third default account (#2): funded on the local node, used as the taker. */
const TAKER_KEY = '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a';
/** Hardhat account #10: the demo's maker (it only signs, so it needs no funds). */
const MAKER_KEY = '0xf214f2b2cd398c806f84e317254e0f0b801d0643303237d97a22a48e01628897';

/**
 * End to end against the stack `npm start` runs: an operator creates a maker organization (or
 * finds the one an earlier run made), a maker signs in and listens, a taker asks for a
 * butterfly, takes the best offer it hears within `DEMO_OFFER_WINDOW_MS` (2 s) of the first (or of
 * the `DEMO_MIN_OFFERS`-th, 1 by default), and settles it on the local chain. Exits non-zero if
 * any step fails.
 */
async function main(): Promise<void> {
  const client = new RfqClient(process.env.BASE_URL ?? 'http://127.0.0.1:8080');
  const { networks } = await client.networks();
  const net = networks.find((n) => n.chain_id === 31337);
  if (!net) throw new Error('network 31337 is not registered: is `npm start` running with its devchain?');

  const window = process.env.DEMO_OFFER_WINDOW_MS ?? '2000';
  if (!/^\d{1,6}$/.test(window)) throw new Error('DEMO_OFFER_WINDOW_MS must be a whole number of milliseconds, e.g. 2000');
  const minOffers = process.env.DEMO_MIN_OFFERS ?? '1';
  if (!/^[1-9]\d?$/.test(minOffers)) throw new Error('DEMO_MIN_OFFERS must be a whole number from 1 to 99');
  const maker = privateKeyToAccount(MAKER_KEY);
  const org = await ensureMakerOrganization(client, maker, { name: 'Demo maker' });
  log('operator', org.created ? 'maker organization created' : 'maker organization already there', { owner: maker.address });

  const mothership = networkContract(net, 'mothership');
  const bot = await runDemoMaker({ client, account: maker, chainId: 31337, mothership, premiumToken: networkContract(net, 'usdc') });
  try {
    const result = await runTaker({
      client,
      account: privateKeyToAccount(TAKER_KEY),
      chainId: 31337,
      rpcUrl: net.rpc_urls[0],
      mothership,
      pair: networkContract(net, 'opshuns_core'),
      offerWindowMs: Number(window),
      minOffers: Number(minOffers),
    });
    log('demo', 'the offer signed through the API settled on the reference mothership', {
      quote: result.quoteId,
      maker: result.offer.maker,
      tx: result.txHash,
    });
  } finally {
    await bot.stop();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`demo failed: ${(err as Error).message}\n`);
    process.exit(1);
  },
);
