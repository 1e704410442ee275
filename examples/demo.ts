import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { networkContract, RfqClient } from '../client/src';
import { log } from './log';
import { runMakerBot } from './maker-bot';
import { runTaker } from './taker';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '..');
/** Hardhat's third default account: funded on the local node, used as the taker. */
const TAKER_KEY = '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a';

/**
 * End to end against the stack `npm start` runs: an operator creates a maker organization, a
 * maker bot signs in and listens, a taker asks for a butterfly, the bot offers, and the taker
 * settles the offer on the local chain. Exits non-zero if any step fails.
 */
async function main(): Promise<void> {
  const client = new RfqClient(process.env.BASE_URL ?? 'http://127.0.0.1:8080');
  const { networks } = await client.networks();
  const net = networks.find((n) => n.chain_id === 31337);
  if (!net) throw new Error('network 31337 is not registered: is `npm start` running with its devchain?');

  const maker = privateKeyToAccount(generatePrivateKey());
  await run(
    process.execPath,
    [
      path.join(ROOT, 'node_modules/tsx/dist/cli.mjs'),
      'bin/ops.ts',
      'org:create',
      '--kind',
      'maker',
      '--name',
      `Demo maker ${Date.now()}`,
      '--owner',
      maker.address,
    ],
    {
      cwd: ROOT,
      env: process.env,
    },
  );
  log('operator', 'maker organization created', { owner: maker.address });

  const mothership = networkContract(net, 'mothership');
  const bot = await runMakerBot({ client, account: maker, chainId: 31337, mothership, premiumToken: networkContract(net, 'usdc') });
  try {
    const result = await runTaker({
      client,
      account: privateKeyToAccount(TAKER_KEY),
      chainId: 31337,
      rpcUrl: net.rpc_urls[0],
      mothership,
      pair: networkContract(net, 'opshuns_core'),
    });
    log('demo', 'the offer signed through the API settled on the reference mothership', { quote: result.quoteId, tx: result.txHash });
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
