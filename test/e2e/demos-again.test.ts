import { execFile, spawn } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { hardhatAccounts } from '../../shared/chain/clients';
import { waitFor } from '../integration/socket/socket-harness';
import { scriptArgs } from '../support/test-build';
import { createTestEnv, type TestEnv } from '../support/test-env';
import { useWholeService } from '../support/whole-service';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../..');
/** Hang guards, not speed expectations: the stack and the demos share a busy machine. */
const DEMO_MS = 240_000;
const [, , , BOT, , ORDERS_MAKER, , , , , DEMO_MAKER, , MAKER_B] = hardhatAccounts(13).map((a) => a.address);

/** What one run of a script printed, and how it ended. */
interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Every demo and the maker bot, each run as its own process as a developer runs it, any number of
 * times and in any order on ONE stack as `npm start` runs it (all four roles, its own devchain,
 * one database, the devchain's non-zero bond minimums): the four demos and the bot in order, then
 * again in reverse order. The second run of each finds the organizations and bonds the first left
 * (`demo:orders` used to fail the second time: its maker "already belongs to a maker
 * organization"). The second pass runs the demos that share nothing side by side (`demo:loans`
 * beside `demo:dutch` and `demo`), and beside it a demo pointed at this stack with DATABASE_URL
 * naming another database says so in one line.
 */
describe('end to end: every demo and the maker bot, twice, in order and in reverse, on one stack', () => {
  const whole = useWholeService({ ORDER_SWEEP_INTERVAL_MS: '500' });
  const runs: Record<string, Run[]> = {};
  const env = (extra: Record<string, string> = {}) => ({
    PATH: process.env.PATH ?? '',
    BASE_URL: whole.svc.url,
    DATABASE_URL: whole.env.config.DATABASE_URL,
    ...extra,
  });

  /** Runs a demo script to its end (compiled from the run's build when it is fresh, as its operator CLI then is). */
  const script = async (name: string, file: string, extra: Record<string, string> = {}): Promise<Run> => {
    const result = await run(process.execPath, scriptArgs(file), { cwd: ROOT, env: env(extra), timeout: DEMO_MS }).then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
      (err: { code?: number; stdout?: string; stderr?: string }) => ({
        code: typeof err.code === 'number' ? err.code : -1,
        stdout: err.stdout ?? '',
        stderr: err.stderr ?? '',
      }),
    );
    (runs[name] ??= []).push(result);
    return result;
  };

  /** Starts the maker bot, waits for its listening line, stops it with SIGTERM as Ctrl-C would. */
  const makerBot = async (): Promise<Run> => {
    const child = spawn(process.execPath, scriptArgs('examples/maker-bot.ts'), { cwd: ROOT, env: env(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const closed = new Promise<number>((resolve) => child.once('close', (code) => resolve(code ?? -1)));
    let ended = false;
    void closed.then(() => (ended = true));
    try {
      await waitFor(() => stdout.includes('[maker-bot] listening on') || ended, DEMO_MS, "the maker bot's listening line");
    } finally {
      if (!ended) child.kill('SIGTERM');
    }
    const result = { code: await closed, stdout, stderr };
    (runs['maker-bot'] ??= []).push(result);
    return result;
  };

  /** The run's lines without their JSON detail, for the assertions that read the sentence. */
  const sentences = (r: Run) => r.stdout.split('\n').map((l) => l.replace(/ \{.*\}$/, ''));
  const explain = (r: Run) => `exit ${r.code}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`;
  const succeeded = (r: Run) => expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });

  const demo = async (nth: 1 | 2) => {
    const r = await script('demo', 'examples/demo.ts');
    succeeded(r);
    const said = sentences(r);
    expect(said[0]).toBe(nth === 1 ? '[operator] maker organization created' : '[operator] maker organization already there');
    expect(said).toEqual(expect.arrayContaining([`[taker] offer from ${DEMO_MAKER}`, `[taker] taking the best of 1 offer(s): 240000000 from ${DEMO_MAKER}`]));
    expect(said.some((l) => /^\[taker\] settled on chain: PackageExecuted in block \d+$/.test(l))).toBe(true);
    expect(said).toContain('[taker] rfq_result: quote filled');
    expect(said).toContain('[demo] the offer signed through the API settled on the reference mothership');
  };

  const loans = async (nth: 1 | 2) => {
    const r = await script('loans', 'examples/demo-loans.ts');
    succeeded(r);
    const lines = r.stdout.trim().split('\n');
    const line = (prefix: string) => lines.find((l) => l.startsWith(prefix)) ?? '';
    const opened = lines.filter((l) => l.startsWith('[lender] loan opened')).map((l) => /"loan":"(31337-\d+)"/.exec(l)?.[1]);
    // Each run opens three loans after those of the runs before it.
    const first = 3 * (nth - 1) + 1;
    expect(opened).toEqual([`31337-${first}`, `31337-${first + 1}`, `31337-${first + 2}`]);
    const [topped, risky] = opened;
    expect(line('[borrower] topped up')).toContain(`"${topped}"`);
    expect(line('[liquidator] liquidated')).toContain(`"${risky}"`);
    // The topped-up loan of every run so far stays open.
    expect(JSON.parse(line('[explore] summary').slice('[explore] summary '.length))).toMatchObject({ active_loans: nth, priced: true });
    expect(line('[explore] health below 3')).toContain(`${topped} health 2.`);
    expect(line("[explore] bob's loans")).toContain(`${risky} liquidated`);
    expect(line('[explore] one loan with its history')).toContain('"opened","collateral_added","repaid"');
  };

  const dutch = async (nth: 1 | 2) => {
    // 10 s to compete: both bots must bid inside the window, which a busy machine's scheduling can outlast at the demo's 2 s.
    const r = await script('dutch', 'examples/dutch-demo.ts', { DEMO_COMPETE_MS: '10000' });
    succeeded(r);
    const said = sentences(r);
    const org = nth === 1 ? 'maker organization created' : 'maker organization already there';
    expect(said).toEqual(expect.arrayContaining([`[operator] maker-a: ${org}`, `[operator] maker-b: ${org}`]));
    // The devchain asks a 2 USDC fill bond of a bid: deposited by the first run, found by the second.
    const bond = nth === 1 ? 'bond: deposited 2 USDC, now 2 USDC' : 'bond: 2 USDC held';
    expect(said).toEqual(expect.arrayContaining([`[maker-a] ${bond}`, `[maker-b] ${bond}`]));
    expect(said).toEqual(expect.arrayContaining([`[taker] phase exclusive`, '[taker] rfq_result: quote filled']));
    expect(r.stdout).toContain(`[taker] phase exclusive {"winner":"${MAKER_B}"}`);
    expect(said).toContain('[demo] maker-b won with the better buy-side bid and filled; the indexer marked the quote filled');
  };

  const orders = async (nth: 1 | 2) => {
    const r = await script('orders', 'examples/orders-demo.ts');
    succeeded(r);
    const said = sentences(r);
    expect(said[0]).toBe(nth === 1 ? '[operator] maker organization created' : '[operator] maker organization already there');
    expect(r.stdout).toContain(`{"owner":"${ORDERS_MAKER}"}`);
    // The devchain's 2 USDC fill bond: deposited once, found there the second time.
    expect(r.stdout).toContain(
      nth === 1
        ? '[maker] bond deposited in the BondVault {"amount":"2000000","bond":"2000000"}'
        : '[maker] bond already in the BondVault {"held":"2000000","needed":"2000000"}',
    );
    expect(said).toEqual(
      expect.arrayContaining([
        '[maker] exclusive fill granted',
        '[maker] filled on chain (fillExclusive)',
        '[indexer] order filled',
        '[portfolio] the owner holds the option',
        '[demo] order recorded, placed, exclusively filled with the API signature, and marked filled by the indexer',
      ]),
    );
  };

  const bot = async (nth: 1 | 2) => {
    const r = await makerBot();
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
    const said = sentences(r);
    expect(said).toEqual(
      nth === 1
        ? [
            '[maker-bot] created a maker organization on the devchain (operator CLI org:create)',
            `[maker-bot] signed in as ${BOT}`,
            '[maker-bot] bond: deposited 2 USDC in the BondVault, now 2 USDC (needed 2 USDC)',
            '[maker-bot] listening on quotes:31337:requests',
            '',
          ]
        : [`[maker-bot] signed in as ${BOT}`, '[maker-bot] bond: 2 USDC held, 2 USDC needed', '[maker-bot] listening on quotes:31337:requests', ''],
    );
  };

  /** Each step's failure carries what its script said. */
  const step = (name: string, body: () => Promise<void>) => async () => {
    try {
      await body();
    } catch (err) {
      const last = runs[name]?.at(-1);
      throw new Error(`${(err as Error).message}\n${last ? explain(last) : ''}`, { cause: err });
    }
  };

  describe('in order', () => {
    it(
      'npm run demo',
      step('demo', () => demo(1)),
      DEMO_MS,
    );
    it(
      'npm run demo:loans',
      step('loans', () => loans(1)),
      DEMO_MS,
    );
    it(
      'npm run demo:dutch',
      step('dutch', () => dutch(1)),
      DEMO_MS,
    );
    it(
      'npm run demo:orders',
      step('orders', () => orders(1)),
      DEMO_MS,
    );
    it(
      'npm run maker-bot',
      step('maker-bot', () => bot(1)),
      DEMO_MS,
    );
  });

  /**
   * Runs started before their own test, so that independent ones overlap on the stack; the test of
   * each awaits it (and reports its failure with what its script said). Independent: neither sends
   * a transaction from an account the other uses, and neither has a maker listening while the other
   * asks for quotes. `demo:loans` (accounts 0 and 5 to 8, no quotes) overlaps `demo:dutch` and
   * `demo` (2, 10, 11, 12), never `demo:orders` (5 is its maker too); the mismatch run (account 13,
   * which sends nothing, and a database of its own; it fails before it listens) overlaps the whole
   * second pass. The ones that stay in line: `demo` and `demo:dutch` share their taker (2), and the
   * maker bot would offer on their quotes.
   */
  const ahead = new Map<string, Promise<void>>();
  const startAhead = (name: string, body: () => Promise<void>) => {
    const running = step(name, body)();
    // Awaited by its own test; this only keeps a failure from counting as unhandled before then.
    running.catch(() => undefined);
    ahead.set(name, running);
  };
  const awaitAhead = (name: string) => () => ahead.get(name) ?? Promise.reject(new Error(`${name} was never started`));

  describe('again, in reverse order (demo:loans beside demo:dutch and demo): each finds what its first run left', () => {
    beforeAll(() => startAhead('mismatch', mismatch));

    it(
      'npm run maker-bot',
      step('maker-bot', () => bot(2)),
      DEMO_MS,
    );
    it(
      'npm run demo:orders',
      async () => {
        try {
          await step('orders', () => orders(2))();
        } finally {
          startAhead('loans', () => loans(2));
        }
      },
      DEMO_MS,
    );
    it(
      'npm run demo:dutch',
      step('dutch', () => dutch(2)),
      DEMO_MS,
    );
    it(
      'npm run demo',
      step('demo', () => demo(2)),
      DEMO_MS,
    );
    it('npm run demo:loans', awaitAhead('loans'), DEMO_MS);
  });

  describe('pointed at this stack with DATABASE_URL naming another database', () => {
    it(
      'npm run maker-bot with a new wallet exits 1 with one line that says the stack reads another database and how to fix it',
      awaitAhead('mismatch'),
      DEMO_MS,
    );
  });

  /** Run ahead, beside the second pass (the `afterAll` above drops its database). */
  let other: TestEnv | undefined;
  afterAll(() => other?.close());
  async function mismatch(): Promise<void> {
    other = await createTestEnv();
    const stranger = hardhatAccounts(14)[13];
    const r = await script('mismatch', 'examples/maker-bot.ts', { DATABASE_URL: other.config.DATABASE_URL, MAKER_PRIVATE_KEY: privateKeyOf(13) });
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toEqual([
      `maker bot failed to start: the operator CLI gave ${stranger.address} a maker organization in DATABASE_URL=${other.config.DATABASE_URL}, but ${whole.svc.url} does not see it: that stack reads another database. Point DATABASE_URL at the database of the stack BASE_URL names (for \`npm run stack:scaled\`, source the file its ready line prints: \`. <file>\`) and run again`,
    ]);
    // The organization went where DATABASE_URL pointed, not into the stack's database.
    expect(await other.db.query(`SELECT 1 FROM organization_members WHERE lower(address) = lower($1)`, [stranger.address])).toHaveLength(1);
    expect(await whole.env.db.query(`SELECT 1 FROM organization_members WHERE lower(address) = lower($1)`, [stranger.address])).toHaveLength(0);
  }
});

/** The private key of Hardhat account `i` (its mnemonic is public). */
function privateKeyOf(i: number): string {
  const key = hardhatAccounts(i + 1)[i].getHdKey().privateKey;
  if (!key) throw new Error(`no private key for account ${i}`);
  return `0x${Buffer.from(key).toString('hex')}`;
}
