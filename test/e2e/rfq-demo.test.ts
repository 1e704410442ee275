import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { networkContract, RfqClient } from '../../client/src';
import { runMakerBot } from '../../examples/maker-bot';
import { runTaker } from '../../examples/taker';
import { waitFor } from '../integration/socket/socket-harness';
import { assertNoTakerIdentity } from '../support/events';
import { useWholeService } from '../support/whole-service';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../..');
const TAKER_KEY = '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a';

/**
 * The whole service as `npm start` runs it (all four roles and its own devchain, on a fresh
 * database), driven by the example maker bot and taker: the proof that the path is real.
 */
describe('end to end: npm start + the example maker bot and taker', () => {
  const whole = useWholeService();

  it('a butterfly is requested, priced, signed, offered and settled on the reference mothership; the quote ends filled', async () => {
    const client = new RfqClient(whole.svc.url);
    const { networks } = await client.networks();
    const net = networks.find((n) => n.chain_id === 31337)!;
    const mothership = networkContract(net, 'mothership');
    expect(mothership).toMatch(/^0x[0-9a-fA-F]{40}$/);

    const maker = privateKeyToAccount(generatePrivateKey());
    await run(process.execPath, [path.join(ROOT, 'node_modules/tsx/dist/cli.mjs'), 'bin/ops.ts', 'org:create', '--kind', 'maker', '--name', 'E2E maker', '--owner', maker.address], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, DATABASE_URL: whole.env.config.DATABASE_URL },
    });
    const seen: { topic: string; event: string; payload: unknown }[] = [];
    const bot = await runMakerBot({
      client,
      account: maker,
      chainId: 31337,
      mothership,
      premiumToken: networkContract(net, 'usdc'),
      onMessage: (topic, event, payload) => seen.push({ topic, event, payload }),
    });
    const taker = privateKeyToAccount(TAKER_KEY);
    try {
      const result = await runTaker({ client, account: taker, chainId: 31337, rpcUrl: net.rpc_urls[0], mothership, pair: networkContract(net, 'opshuns_core') });
      expect(result.offer.maker).toBe(maker.address);
      expect(result.txHash).toMatch(/^0x[0-9a-f]{64}$/);
      // The maker heard the request, its own offer and the result, and never who the taker is.
      const events = () => seen.map((m) => `${m.topic.split(':')[0]}:${m.event}`);
      await waitFor(() => events().includes('rfq_maker:rfq_result'), 10000, "the maker's rfq_result");
      expect(events()).toEqual(expect.arrayContaining(['quotes:rfq_request', 'rfq_maker:rfq_offer', 'rfq_maker:rfq_result']));
      assertNoTakerIdentity(
        seen.filter((m) => !m.event.startsWith('phx_')).map((m) => m.payload),
        { taker: taker.address },
      );
    } finally {
      await bot.stop();
    }
  }, 90000);
});
