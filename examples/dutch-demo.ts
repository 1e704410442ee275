import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { createWalletClient, http, parseEther } from 'viem';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { networkContract, RfqClient } from '../client/src';
import { runDutchMaker } from './dutch-maker-bot';
import { runDutchTaker, type DutchOutcome } from './dutch-taker';
import { log } from './log';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '..');
/** Hardhat's third default account: funded on the local node, the taker (it also funds the makers' gas). */
const TAKER_KEY = '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a';

export interface DutchDemoResult extends DutchOutcome {
  makers: { name: string; address: string }[];
  fillTx: string;
}

/**
 * The Dutch flow against a running stack: two maker bots bid both sides, the better bid for the
 * taker's side wins, receives the award naming its wallet and fills on the local chain, and the indexer marks the
 * quote filled while the taker hears every phase and the result.
 */
export async function runDutchDemo(
  baseUrl: string,
  opts: {
    env?: NodeJS.ProcessEnv;
    onMessage?: (topic: string, event: string, payload: unknown) => void;
    /** The competing window (the taker's default: 2 s). Longer gives the bots' bids room on a busy machine. */
    competeMs?: number;
  } = {},
): Promise<DutchDemoResult> {
  const client = new RfqClient(baseUrl);
  const { networks } = await client.networks();
  const net = networks.find((n) => n.chain_id === 31337);
  if (!net) throw new Error('network 31337 is not registered: is `npm start` running with its devchain?');
  const taker = privateKeyToAccount(TAKER_KEY);
  const chain = { id: 31337, name: 'local', nativeCurrency: { name: 'ETH', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [net.rpc_urls[0]] } } };
  const funder = createWalletClient({ account: taker, chain, transport: http(net.rpc_urls[0]) });

  const makers: { name: string; account: PrivateKeyAccount; bid: { buy_override_bps: number; sell_override_bps: number } }[] = [
    { name: 'maker-a', account: privateKeyToAccount(generatePrivateKey()), bid: { buy_override_bps: 20, sell_override_bps: 90 } },
    { name: 'maker-b', account: privateKeyToAccount(generatePrivateKey()), bid: { buy_override_bps: 60, sell_override_bps: 5 } },
  ];
  for (const m of makers) {
    await run(
      process.execPath,
      [
        path.join(ROOT, 'node_modules/tsx/dist/cli.mjs'),
        'bin/ops.ts',
        'org:create',
        '--kind',
        'maker',
        '--name',
        `Dutch demo ${m.name} ${Date.now()}`,
        '--owner',
        m.account.address,
      ],
      {
        cwd: ROOT,
        env: opts.env ?? process.env,
      },
    );
    await funder.sendTransaction({ to: m.account.address, value: parseEther('1') });
    log('operator', `${m.name}: maker organization created, gas funded`, { owner: m.account.address });
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
  runDutchDemo(process.env.BASE_URL ?? 'http://127.0.0.1:8080').then(
    () => process.exit(0),
    (err: unknown) => {
      process.stderr.write(`Dutch demo failed: ${(err as Error).message}\n`);
      process.exit(1);
    },
  );
}
