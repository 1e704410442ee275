import { execFile, spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { createPublicClient, http, type Address } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { networkContract, RfqClient, type Network } from '../../client/src';
import { bondOf, bondVaultSetup, depositBond, requestBondWithdrawal, withdrawBond } from '../../docs/snippets/bond-vault';
import { runDutchTaker } from '../../examples/dutch-taker';
import { runTaker } from '../../examples/taker';
import { hardhatAccounts } from '../../shared/chain/clients';
import type { TestChain } from '../support/chain';
import { opsOn } from '../support/ops';
import { scriptArgs } from '../support/test-build';
import { sharedTestChain } from '../support/worker-chain';
import { waitFor, waitForAsync } from '../integration/socket/socket-harness';
import { useWholeService } from '../support/whole-service';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../..');
/** The bot's default wallet (Hardhat account #3) and the taker of the demos (account #2). */
const BOT = hardhatAccounts(4)[3];
const TAKER_KEY = '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a';
/** `npm run demo`'s own maker (Hardhat account #10), whose pricer asks 2% of the strike notional. */
const DEMO_MAKER = hardhatAccounts(11)[10].address;
const USDC = 1_000_000n;
const FILL_BOND = 2n * USDC;
/** Hang guards, not speed expectations: the stack shares a busy machine. */
const STEP_MS = 90_000;

/**
 * `npm run maker-bot` as a user runs it: its own process, its defaults, against the stack `npm
 * start` runs (all roles, its own devchain). The taker side settles what the bot answered, and
 * the bot's log lines say what it did. Then the BondVault snippets of docs/ORDERS.md, as written,
 * on the same chain and, for the withdrawal after its delay, on a private chain whose clock a test may move.
 */
describe('end to end: npm run maker-bot against npm start, and the bond snippets', () => {
  const whole = useWholeService();
  const ops = async (...args: string[]) => {
    const r = await opsOn({ DATABASE_URL: whole.env.config.DATABASE_URL }, ...args);
    expect(r).toMatchObject({ code: 0 });
    return r;
  };
  const devchain = async (): Promise<Network> => (await new RfqClient(whole.svc.url).networks()).networks.find((n) => n.chain_id === 31337)!;
  let bot: ChildProcess | undefined;
  const lines: string[] = [];
  let stderr = '';
  const has = (line: string) => lines.includes(`[maker-bot] ${line}`);
  /** A step's failure, with what the bot said so far. */
  const explained = <T>(step: Promise<T>): Promise<T> =>
    step.catch((err: unknown) => {
      throw new Error(`${(err as Error).message}; the bot said:\n${lines.join('\n')}\nstderr: ${stderr}`, { cause: err });
    });
  const heard = (line: string) => explained(waitFor(() => has(line), STEP_MS, `the bot's "${line}"`));

  beforeAll(async () => {
    // The devchain's own bond minimum, untouched: the bot deposits what a new user's bot would.
    // Compiled from the run's build when it is fresh (its operator CLI then too), else through tsx.
    bot = spawn(process.execPath, scriptArgs('examples/maker-bot.ts'), {
      cwd: ROOT,
      // Only what a developer's shell gives `npm run maker-bot`: where the API is, and the database the operator CLI uses.
      env: { PATH: process.env.PATH ?? '', BASE_URL: whole.svc.url, DATABASE_URL: whole.env.config.DATABASE_URL },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let buf = '';
    bot.stdout?.on('data', (d: Buffer) => {
      buf += d.toString();
      const parts = buf.split('\n');
      buf = parts.pop() ?? '';
      // The JSON detail of a line is kept apart: the assertions read the sentence.
      lines.push(...parts.map((l) => l.replace(/ \{.*\}$/, '')));
    });
    bot.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    await heard('listening on quotes:31337:requests');
  }, 240_000);

  afterAll(async () => {
    if (bot && bot.exitCode === null) {
      const exited = new Promise((r) => bot?.once('close', r));
      bot.kill('SIGTERM');
      await exited;
    }
  });

  it('signs in with the devchain default, becomes a maker and deposits the bond the API asks for (the devchain asks 2 USDC)', async () => {
    const { stdout } = await ops('settings:get', 'bond_requirements');
    expect(JSON.parse(stdout).value.USDC).toEqual({ premium_bond_amount: FILL_BOND.toString(), fill_bond_amount: FILL_BOND.toString() });
    expect(lines).toEqual(
      expect.arrayContaining([
        '[maker-bot] created a maker organization on the devchain (operator CLI org:create)',
        `[maker-bot] signed in as ${BOT.address}`,
        '[maker-bot] bond: deposited 2 USDC in the BondVault, now 2 USDC (needed 2 USDC)',
      ]),
    );
  });

  it('prices a butterfly, dry-runs its offer, sends it, and hears the quote filled once the taker settles it', async () => {
    const net = await devchain();
    const taker = privateKeyToAccount(TAKER_KEY);
    const result = await explained(
      runTaker({
        client: new RfqClient(whole.svc.url),
        account: taker,
        chainId: 31337,
        rpcUrl: net.rpc_urls[0],
        mothership: networkContract(net, 'mothership'),
        pair: networkContract(net, 'opshuns_core'),
        timeoutMs: STEP_MS,
      }),
    );
    // 25 USDC per leg per option: the butterfly's 1 + 2 + 1 options.
    expect(result.offer).toMatchObject({ maker: BOT.address, package_premium: (100n * USDC).toString() });
    await heard(`quote ${result.quoteId} is filled`);
    const id = result.quoteId;
    expect(lines.filter((l) => l.includes(id))).toEqual([
      `[maker-bot] request ${id}: butterfly, 3 legs, priced at 100 USDC`,
      `[maker-bot] dry-run accept: package offer on ${id}`,
      `[maker-bot] offer sent on ${id}`,
      `[maker-bot] quote ${id} is filled`,
    ]);
    expect(lines.join('\n').toLowerCase()).not.toContain(taker.address.toLowerCase());
  }, 240_000);

  it("with the bot running, npm run demo's taker takes the bot's 100 USDC offer over its own maker's 240 USDC one", async () => {
    const demo = await explained(
      run(process.execPath, scriptArgs('examples/demo.ts'), {
        cwd: ROOT,
        // Both offers heard before the choice (the bot's and the demo maker's), so the test does not race the bot.
        env: { PATH: process.env.PATH, BASE_URL: whole.svc.url, DATABASE_URL: whole.env.config.DATABASE_URL, DEMO_MIN_OFFERS: '2', DEMO_OFFER_WINDOW_MS: '0' },
        timeout: STEP_MS,
      }),
    );
    const said = demo.stdout.split('\n');
    expect(said.filter((l) => l.startsWith('[taker] offer from')).sort()).toEqual(
      [
        `[taker] offer from ${BOT.address} {"premium":"${100n * USDC}","maker_pays_taker":false}`,
        `[taker] offer from ${DEMO_MAKER} {"premium":"${240n * USDC}","maker_pays_taker":false}`,
      ].sort(),
    );
    expect(said).toContain(`[taker] taking the best of 2 offer(s): ${100n * USDC} from ${BOT.address}`);
    const quote = /^\[taker\] quote (\S+) created/m.exec(demo.stdout)?.[1] ?? '';
    await heard(`quote ${quote} is filled`);
  }, 240_000);

  it('dry-runs and sends a bid on a Dutch auction, wins it and fills it on chain', async () => {
    const net = await devchain();
    // A bid needs the bond as indexed: wait for the indexer to have seen the bot's deposit.
    await waitForAsync(
      async () => (await whole.env.db.query(`SELECT 1 FROM indexer_bond_events WHERE lower(maker) = lower($1)`, [BOT.address])).length > 0,
      STEP_MS,
      "the bot's deposit to be indexed",
    );
    const outcome = await explained(
      runDutchTaker({
        client: new RfqClient(whole.svc.url),
        account: privateKeyToAccount(TAKER_KEY),
        chainId: 31337,
        mothership: networkContract(net, 'mothership'),
        pair: networkContract(net, 'opshuns_core'),
        token0: networkContract(net, 'token0'),
        token1: networkContract(net, 'token1'),
        premiumToken: networkContract(net, 'usdc'),
        timeoutMs: STEP_MS,
      }),
    );
    expect(outcome.winner).toBe(BOT.address);
    expect(outcome.bids).toEqual([{ maker: BOT.address, side: 'buy', override_bps: 25 }]);
    const id = outcome.quoteId;
    await heard(`quote ${id} is filled`);
    const said = lines.filter((l) => l.includes(id));
    expect(said.slice(0, 4)).toEqual([
      `[maker-bot] Dutch request ${id}: capped_call, bidding 25 bps on both sides`,
      `[maker-bot] dry-run accept: Dutch bid on ${id}`,
      `[maker-bot] bid sent on ${id}`,
      expect.stringMatching(new RegExp(`^\\[maker-bot\\] won Dutch ${id}: filling before `)),
    ]);
    expect(said).toEqual(expect.arrayContaining([`[maker-bot] filled Dutch ${id} on chain`, `[maker-bot] quote ${id} is filled`]));
    expect(outcome.result).toMatchObject({ state: 'filled' });
  }, 240_000);

  describe('the BondVault snippets of docs/ORDERS.md', () => {
    /** Hardhat account #9: funded, used by no demo and not by the bot. */
    const maker = hardhatAccounts(10)[9];
    let chain: TestChain | undefined;
    afterAll(() => chain?.stop());

    it('on the stack: faucet, approve and deposit; a withdrawal request starts the delay, and withdraw() before it reverts', async () => {
      const net = await devchain();
      const usdc = networkContract(net, 'usdc');
      const setup = await bondVaultSetup(new RfqClient(whole.svc.url), 31337, usdc);
      expect(setup.bondVault).toBe(networkContract(net, 'bond_vault'));

      await depositBond(setup, maker, 5n * USDC);
      expect(await bondOf(setup, maker)).toBe(5n * USDC);
      const reader = createPublicClient({ transport: http(setup.rpcUrl) });
      const read = (functionName: string, args: unknown[]) =>
        reader.readContract({
          address: functionName === 'balanceOf' ? usdc : setup.bondVault,
          abi: functionName === 'balanceOf' ? setup.abis.erc20 : setup.abis.bond_vault,
          functionName,
          args,
        }) as Promise<bigint>;
      // One faucet() minted 100,000 USDC; the deposit took 5.
      expect(await read('balanceOf', [maker.address])).toBe(100_000n * USDC - 5n * USDC);

      const withdrawableAt = await requestBondWithdrawal(setup, maker, 2n * USDC);
      const block = await reader.getBlock();
      expect(withdrawableAt).toBe(block.timestamp + (await read('withdrawalDelay', [])));
      expect(await read('pendingWithdrawal', [maker.address, usdc])).toBe(2n * USDC);
      await expect(withdrawBond(setup, maker)).rejects.toThrow(/WithdrawalNotReady/);
      expect(await bondOf(setup, maker)).toBe(5n * USDC);
    }, 120_000);

    it('on a private chain whose clock moves: withdraw() after withdrawableAt pays the pending amount out', async () => {
      const stackSetup = await bondVaultSetup(new RfqClient(whole.svc.url), 31337, networkContract(await devchain(), 'usdc'));
      chain = await sharedTestChain();
      // A fresh deployment lands at the devchain's addresses, so the setup read from the API applies as is.
      expect({ vault: chain.addresses.bondVault, usdc: chain.addresses.usdc }).toEqual({ vault: stackSetup.bondVault, usdc: stackSetup.token as Address });
      const setup = { ...stackSetup, rpcUrl: chain.rpcUrl };

      await depositBond(setup, maker, 5n * USDC);
      const withdrawableAt = await requestBondWithdrawal(setup, maker, 2n * USDC);
      await chain.increaseTime(Number(withdrawableAt) - (await chain.now()));
      await withdrawBond(setup, maker);
      expect(await bondOf(setup, maker)).toBe(3n * USDC);
      await expect(withdrawBond(setup, maker)).rejects.toThrow(/NoPendingWithdrawal/);
    }, 120_000);
  });
});
