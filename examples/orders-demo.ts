import { privateKeyToAccount } from 'viem/accounts';
import { networkContract, RfqClient } from '../client/src';
import { log } from './console-log';
import { ensureMakerOrganization } from './maker-organization';
import { runOrdersFlow } from './orders-flow';

/** Hardhat's fifth and sixth default accounts: funded on the local node, used as owner and maker. */
const OWNER_KEY = '0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a';
const MAKER_KEY = '0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba';

/**
 * `npm run demo:orders` against the stack `npm start` runs: an owner records and places an order,
 * a maker (in an organization the operator creates, or the one an earlier run made) tops its bond
 * up to the fill bond, takes an exclusive fill and fills on the local chain with the API's
 * signature; the indexer marks the order filled. Runs any number of times on one stack.
 */
async function main(): Promise<void> {
  const client = new RfqClient(process.env.BASE_URL ?? 'http://127.0.0.1:8080');
  const { networks } = await client.networks();
  const net = networks.find((n) => n.chain_id === 31337);
  if (!net) throw new Error('network 31337 is not registered: is `npm start` running with its devchain?');
  const maker = privateKeyToAccount(MAKER_KEY);
  const org = await ensureMakerOrganization(client, maker, { name: 'Orders demo maker' });
  log('operator', org.created ? 'maker organization created' : 'maker organization already there', { owner: maker.address });
  // The fill bond the API asks for: the exclusive fill reserves one while it is live.
  const { tokens } = await client.call<{ tokens: Record<string, { fill_bond_amount: string }> }>('GET', '/api/bond-requirements');
  const bond = BigInt(tokens.USDC?.fill_bond_amount ?? '0');
  await runOrdersFlow({
    client,
    chainId: 31337,
    rpcUrl: net.rpc_urls[0],
    pair: networkContract(net, 'opshuns_core'),
    bondVault: networkContract(net, 'bond_vault'),
    premiumToken: networkContract(net, 'usdc'),
    owner: privateKeyToAccount(OWNER_KEY),
    maker,
    bond,
  });
  log('demo', 'order recorded, placed, exclusively filled with the API signature, and marked filled by the indexer');
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`demo failed: ${(err as Error).message}\n`);
    process.exit(1);
  },
);
