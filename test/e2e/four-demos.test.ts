import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { networkContract, RfqClient, type Network } from '../../client/src';
import { runDutchDemo } from '../../examples/dutch-demo';
import { runDemoMaker } from '../../examples/demo-maker';
import { runOrdersFlow } from '../../examples/orders-flow';
import { runTaker } from '../../examples/taker';
import { rawRpc } from '../../shared/chain/clients';
import { waitFor } from '../integration/socket/socket-harness';
import { assertNoTakerIdentity } from '../support/events';
import { opsOn } from '../support/ops';
import { scriptArgs } from '../support/test-build';
import { useWholeService } from '../support/whole-service';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../..');
/** Hardhat's third default account: the taker of `npm run demo` and `npm run demo:dutch`. */
const TAKER_KEY = '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a';
/** Hardhat's fifth and sixth default accounts: the owner and maker of `npm run demo:orders`. */
const OWNER_KEY = '0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a';
const MAKER_KEY = '0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba';
const FILL_BOND = 2_000_000n;
/** How far the devchain's newest block may be from the wall clock (whole seconds, both rounded down). */
const CLOCK_TOLERANCE_S = 3;

/**
 * The four demos one after the other on ONE stack as `npm start` runs it (all four roles and its
 * own devchain, on a fresh database), as a developer runs them: `npm run demo`, `demo:loans`,
 * `demo:dutch`, then `demo:orders`. Each step is that demo's flow with its checks; the last
 * checks that the devchain's block time is still the wall clock. It used to run 34 s ahead after
 * the first three (Hardhat's automine gives a same-second block its parent's time + 1), and the
 * orders demo's exclusive fill, whose expiry the API sets by the wall clock, reverted FillExpired.
 */
describe('end to end: npm start + the four demos in sequence', () => {
  const whole = useWholeService({ ORDER_SWEEP_INTERVAL_MS: '500' });
  const ops = async (...args: string[]) => expect(await opsOn({ DATABASE_URL: whole.env.config.DATABASE_URL }, ...args)).toMatchObject({ code: 0 });
  const devchain = async (): Promise<Network> => (await new RfqClient(whole.svc.url).networks()).networks.find((n) => n.chain_id === 31337)!;
  /** Seconds the chain's newest block is ahead of the wall clock (negative: behind). */
  const chainAhead = async (rpcUrl: string) => {
    const block = await rawRpc<{ timestamp: `0x${string}` }>(rpcUrl, 'eth_getBlockByNumber', ['latest', false], 10_000);
    return Number(BigInt(block.timestamp)) - Math.floor(Date.now() / 1000);
  };

  it('npm run demo: a butterfly is requested, priced, signed, offered and settled on the reference mothership; the quote ends filled', async () => {
    const client = new RfqClient(whole.svc.url);
    const net = await devchain();
    const mothership = networkContract(net, 'mothership');
    expect(mothership).toMatch(/^0x[0-9a-fA-F]{40}$/);
    const maker = privateKeyToAccount(generatePrivateKey());
    await ops('org:create', '--kind', 'maker', '--name', 'E2E maker', '--owner', maker.address);
    const seen: { topic: string; event: string; payload: unknown }[] = [];
    const bot = await runDemoMaker({
      client,
      account: maker,
      chainId: 31337,
      mothership,
      premiumToken: networkContract(net, 'usdc'),
      onMessage: (topic, event, payload) => seen.push({ topic, event, payload }),
    });
    const taker = privateKeyToAccount(TAKER_KEY);
    try {
      const result = await runTaker({
        client,
        account: taker,
        chainId: 31337,
        rpcUrl: net.rpc_urls[0],
        mothership,
        pair: networkContract(net, 'opshuns_core'),
      });
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
  }, 90_000);

  it('npm run demo:loans: opens, tops up, repays and liquidates loans, and reads them back through the nine routes', async () => {
    const { stdout } = await run(process.execPath, scriptArgs('examples/demo-loans.ts'), {
      cwd: ROOT,
      env: { PATH: process.env.PATH, BASE_URL: whole.svc.url },
      timeout: 120_000,
    });
    const lines = stdout.trim().split('\n');
    const line = (prefix: string) => lines.find((l) => l.startsWith(prefix)) ?? '';
    expect(lines.filter((l) => l.startsWith('[lender] loan opened'))).toHaveLength(3);
    expect(line('[borrower] topped up')).toContain('31337-1');
    expect(line('[liquidator] liquidated')).toContain('31337-2');
    expect(JSON.parse(line('[explore] summary').slice('[explore] summary '.length))).toMatchObject({ active_loans: 1, priced: true });
    expect(line('[explore] health below 3')).toContain('31337-1 health 2.');
    expect(line('[explore] recent openings')).toContain('"31337-3","31337-2","31337-1"');
    expect(line('[explore] activity')).toContain('31337-2 liquidated');
    expect(line("[explore] bob's loans")).toContain('31337-2 liquidated');
    expect(line('[explore] one loan with its history')).toContain('"opened","collateral_added","repaid"');
    expect(line('[explore] its collateral movements')).toContain('collateral_added 500000000000000000');
    expect(line('[explore] loan stream minted')).toContain('explore_loan_stream:<token>');
  }, 180_000);

  it('npm run demo:dutch: two bots bid, the better buy-side bid wins and fills on chain; the quote ends filled', async () => {
    const seen: { topic: string; event: string; payload: unknown }[] = [];
    const out = await runDutchDemo(whole.svc.url, {
      env: { PATH: process.env.PATH, DATABASE_URL: whole.env.config.DATABASE_URL },
      // The makers' organizations through the CLI compiled in the run's build when it is fresh.
      opsCommand: scriptArgs('bin/ops.ts'),
      onMessage: (topic, event, payload) => seen.push({ topic, event, payload }),
      // Both bots must bid inside the window: 2 s (the demo's) is lost to a busy machine's
      // scheduling before a bid is signed and sent, and the auction then opens with no winner.
      competeMs: 10_000,
    });
    // maker-b bid 60 bps on the buy side (the taker buys), maker-a 20: b wins though a's sell side was better.
    expect(out.winner).toBe(out.makers[1].address);
    expect(out.phases.slice(0, 2)).toEqual(['competing', 'exclusive']);
    expect(out.bids.map((b) => b.side)).toEqual(['buy', 'buy']);
    expect(out.bids.map((b) => b.override_bps).sort((x, y) => x - y)).toEqual([20, 60]);
    expect(out.result).toMatchObject({ state: 'filled', fill_tx_hash: out.fillTx });
    // Makers never see the taker's address as a field or a value of any payload.
    const payloads = seen.filter((m) => !m.event.startsWith('phx_')).map((m) => m.payload as Record<string, unknown>);
    expect(payloads.some((p) => p.dutch_phase === 'competing')).toBe(true);
    assertNoTakerIdentity(
      payloads.map((p) => (p.dutch_request ? { ...p, dutch_request: { ...(p.dutch_request as object), referrer: undefined } } : p)),
      { taker: privateKeyToAccount(TAKER_KEY).address },
    );
  }, 120_000);

  it('npm run demo:orders, right after: an order is placed, a bonded maker fills it exclusively before the wall-clock expiry, the indexer marks it filled', async () => {
    const client = new RfqClient(whole.svc.url);
    const net = await devchain();
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
    const fills: { state: string; used_tx_hash: string }[] = await whole.env.db.query(`SELECT state, used_tx_hash FROM exclusive_fills WHERE id = $1`, [
      result.fill.exclusive_fill_id,
    ]);
    expect(fills).toEqual([{ state: 'used', used_tx_hash: result.txHash.toLowerCase() }]);
  }, 120_000);

  it("after the four demos the devchain's block time is still the wall clock", async () => {
    const rpcUrl = (await devchain()).rpc_urls[0]!;
    // The newest block was mined during the demos: never ahead of now.
    expect(await chainAhead(rpcUrl)).toBeLessThanOrEqual(CLOCK_TOLERANCE_S);
    // A block mined now (no timestamp given: the node picks it) carries the current second.
    // Bracketed by the wall clock read before the mine and after the read, so a slow machine
    // widens the window instead of failing it.
    const before = Math.floor(Date.now() / 1000);
    await rawRpc(rpcUrl, 'evm_mine', [], 10_000);
    const mined = await rawRpc<{ timestamp: `0x${string}` }>(rpcUrl, 'eth_getBlockByNumber', ['latest', false], 10_000);
    const after = Math.ceil(Date.now() / 1000);
    const stamp = Number(BigInt(mined.timestamp));
    expect(stamp).toBeGreaterThanOrEqual(before - CLOCK_TOLERANCE_S);
    expect(stamp).toBeLessThanOrEqual(after + CLOCK_TOLERANCE_S);
  });
});
