import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { networkContract, RfqClient } from '../client/src';
import { runDutchMaker } from './dutch-maker-bot';
import { runDutchTaker, type DutchOutcome } from './dutch-taker';
import { ensureFillBond } from './ensure-fill-bond';
import { log } from './console-log';
import { ensureMakerOrganization } from './maker-organization';

/** Hardhat's third default account (#2): funded on the local node, the taker. */
const TAKER_KEY = '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a';
/** Hardhat accounts #11 and #12, funded on the local node: the two makers (they pay gas for their bonds and the fill). */
const MAKER_A_KEY = '0x701b615bbdfb9de65240bc28bd21bbc0d996645a3dd57e7b12bc2bdf6f192c82';
const MAKER_B_KEY = '0xa267530f49f8280200edf313ee7af6b827f2a8bce2897751d06a843f644967b1';

export interface DutchDemoResult extends DutchOutcome {
  makers: { name: string; address: string }[];
  fillTx: string;
}

/**
 * The Dutch flow against a running stack: two maker bots (in organizations the operator creates,
 * or the ones an earlier run made) top their bonds up to the fill bond a bid needs, then bid both
 * sides; the better bid for the taker's side wins, receives the award naming its wallet and fills
 * on the local chain, and the indexer marks the quote filled while the taker hears every phase and
 * the result. Runs any number of times on one stack.
 */
export async function runDutchDemo(
  baseUrl: string,
  opts: {
    env?: NodeJS.ProcessEnv;
    onMessage?: (topic: string, event: string, payload: unknown) => void;
    /** The competing window (the taker's default: 2 s). Longer gives the bots' bids room on a busy machine. */
    competeMs?: number;
    /** How to start the operator CLI that creates the makers' organizations (`ensureMakerOrganization`). */
    opsCommand?: readonly string[];
  } = {},
): Promise<DutchDemoResult> {
  const client = new RfqClient(baseUrl);
  const { networks } = await client.networks();
  const net = networks.find((n) => n.chain_id === 31337);
  if (!net) throw new Error('network 31337 is not registered: is `npm start` running with its devchain?');
  const taker = privateKeyToAccount(TAKER_KEY);

  const makers: { name: string; account: PrivateKeyAccount; bid: { buy_override_bps: number; sell_override_bps: number } }[] = [
    { name: 'maker-a', account: privateKeyToAccount(MAKER_A_KEY), bid: { buy_override_bps: 20, sell_override_bps: 90 } },
    { name: 'maker-b', account: privateKeyToAccount(MAKER_B_KEY), bid: { buy_override_bps: 60, sell_override_bps: 5 } },
  ];
  for (const m of makers) {
    const org = await ensureMakerOrganization(client, m.account, { name: `Dutch demo ${m.name}`, env: opts.env, opsCommand: opts.opsCommand });
    log('operator', `${m.name}: ${org.created ? 'maker organization created' : 'maker organization already there'}`, { owner: m.account.address });
    // A bid needs the fill bond of the request's premium token, as indexed (403 insufficient_fill_bond without it).
    const bond = await ensureFillBond(client, m.account, 31337);
    log(
      m.name,
      bond.tx ? `bond: deposited ${bond.units(bond.deposited)}, now ${bond.units(bond.held + bond.deposited)}` : `bond: ${bond.units(bond.held)} held`,
      {
        needed: bond.units(bond.needed),
      },
    );
  }

  const mothership = networkContract(net, 'mothership');
  const bots = await Promise.all(
    makers.map((m) =>
      runDutchMaker({ client, account: m.account, name: m.name, chainId: 31337, rpcUrl: net.rpc_urls[0], mothership, bid: m.bid, onMessage: opts.onMessage }),
    ),
  );
  try {
    const outcome = await runDutchTaker({
      client,
      account: taker,
      chainId: 31337,
      mothership,
      pair: networkContract(net, 'opshuns_core'),
      token0: networkContract(net, 'token0'),
      token1: networkContract(net, 'token1'),
      premiumToken: networkContract(net, 'usdc'),
      competeMs: opts.competeMs,
    });
    const winner = makers.findIndex((m) => m.account.address === outcome.winner);
    if (winner < 0) throw new Error(`the winner ${outcome.winner} is none of the bots`);
    const fillTx = await bots[winner].fills;
    log('demo', `${makers[winner].name} won with the better buy-side bid and filled; the indexer marked the quote filled`, {
      quote: outcome.quoteId,
      tx: fillTx,
    });
    return { ...outcome, makers: makers.map((m) => ({ name: m.name, address: m.account.address })), fillTx };
  } finally {
    await Promise.all(bots.map((b) => b.stop()));
  }
}

if (require.main === module) {
  const compete = process.env.DEMO_COMPETE_MS ?? '2000';
  (/^\d{1,7}$/.test(compete)
    ? runDutchDemo(process.env.BASE_URL ?? 'http://127.0.0.1:8080', { competeMs: Number(compete) })
    : Promise.reject(new Error('DEMO_COMPETE_MS must be a whole number of milliseconds, e.g. 2000'))
  ).then(
    () => process.exit(0),
    (err: unknown) => {
      process.stderr.write(`Dutch demo failed: ${(err as Error).message}\n`);
      process.exit(1);
    },
  );
}
