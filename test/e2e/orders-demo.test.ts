import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { privateKeyToAccount } from 'viem/accounts';
import { networkContract, RfqClient } from '../../client/src';
import { runOrdersFlow } from '../../examples/orders-flow';
import { useWholeService } from '../support/whole-service';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../..');
const OWNER_KEY = '0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a';
const MAKER_KEY = '0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba';
const FILL_BOND = 2_000_000n;

/**
 * The orders demo (`npm run demo:orders`'s flow) against the whole service as `npm start` runs it:
 * all four roles and its own devchain, on a fresh database, with a fill bond minimum set by the operator.
 */
describe('end to end: npm start + the orders demo', () => {
  const whole = useWholeService({ ORDER_SWEEP_INTERVAL_MS: '500' });
  const ops = (...args: string[]) =>
    run(process.execPath, [path.join(ROOT, 'node_modules/tsx/dist/cli.mjs'), 'bin/ops.ts', ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, DATABASE_URL: whole.env.config.DATABASE_URL },
    });

  it('an order is recorded and placed, a bonded maker fills it exclusively, the indexer marks it filled and the fill used', async () => {
    const client = new RfqClient(whole.svc.url);
    const net = (await client.networks()).networks.find((n) => n.chain_id === 31337)!;
    const maker = privateKeyToAccount(MAKER_KEY);
    await ops('org:create', '--kind', 'maker', '--name', 'E2E orders maker', '--owner', maker.address);
    await ops('settings:set', 'bond_requirements', JSON.stringify({ USDC: { premium_bond_amount: '1', fill_bond_amount: FILL_BOND.toString() } }));

    const result = await runOrdersFlow({
      client,
      chainId: 31337,
      rpcUrl: net.rpc_urls[0],
      pair: networkContract(net, 'opshuns_core'),
      bondVault: networkContract(net, 'bond_vault'),
      premiumToken: networkContract(net, 'usdc'),
      owner: privateKeyToAccount(OWNER_KEY),
      maker,
      bond: FILL_BOND,
    });
    expect(result.order).toMatchObject({ state: 'filled', fill_tx_hash: result.txHash.toLowerCase() });
    expect(result.fill.fill_bond_requirements.USDC).toMatchObject({ fill_bond_amount: FILL_BOND.toString(), maker_bond: FILL_BOND.toString() });
    const fills: { state: string; used_tx_hash: string }[] = await whole.env.db.query(`SELECT state, used_tx_hash FROM exclusive_fills WHERE id = $1`, [result.fill.exclusive_fill_id]);
    expect(fills).toEqual([{ state: 'used', used_tx_hash: result.txHash.toLowerCase() }]);
  }, 120000);
});
