import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { networkContract, RfqClient } from '../../client/src';
import { runMakerBot } from '../../examples/maker-bot';
import { runTaker } from '../../examples/taker';
import { waitFor, waitForAsync } from '../integration/socket/socket-harness';
import { assertNoTakerIdentity } from '../support/events';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../..');
/** Hardhat's third default account: the taker of `npm run demo`. */
const TAKER_KEY = '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a';

interface Ready {
  base_url: string;
  redis: string;
  database_url: string;
  pids: number[];
  tmp: string;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * `npm run stack:scaled` as an operator runs it: the whole scaled topology from the machine's
 * binaries (Redis Cluster, Postgres primary + streaming replica, HAProxy, two of each role, two
 * indexers, the devchain). A quote created through HAProxy reaches a maker connected through
 * HAProxy, who offers; the taker settles on chain. SIGTERM then leaves nothing behind.
 */
describe('npm run stack:scaled', () => {
  let stack: ChildProcess;
  let ready: Ready;
  let out = '';
  let err = '';
  let exited: Promise<number | null>;

  beforeAll(async () => {
    stack = spawn(process.execPath, ['--import', 'tsx', 'dev/scaled/stack.ts'], {
      cwd: ROOT,
      env: { ...process.env, LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    exited = new Promise((resolve) => stack.once('close', (code) => resolve(code)));
    stack.stderr?.on('data', (d: Buffer) => (err += d.toString()));
    ready = await new Promise<Ready>((resolve, reject) => {
      stack.stdout?.on('data', (d: Buffer) => {
        out += d.toString();
        const line = out.split('\n').find((l) => l.startsWith('{') && l.includes('"event":"ready"'));
        if (line) resolve(JSON.parse(line) as Ready);
      });
      void exited.then((code) => reject(new Error(`stack:scaled exited with ${code} before it was ready:\n${err}`)));
    });
  }, 900_000);

  afterAll(async () => {
    if (stack && stack.exitCode === null && stack.signalCode === null) {
      stack.kill('SIGTERM');
      await exited;
    }
  }, 180_000);

  it('prints its base URL, runs the roles on the Redis Cluster, and balances both API replicas behind HAProxy', async () => {
    expect(out).toContain(`RFQ scaled stack ready: ${ready.base_url}`);
    expect(ready.redis).toBe('cluster');
    const served = new Set<string>();
    for (let i = 0; i < 6; i++) {
      const r = await fetch(`${ready.base_url}/readyz`);
      expect(r.status).toBe(200);
      served.add(r.headers.get('x-served-by') ?? '');
    }
    expect([...served].sort()).toEqual(['api-1', 'api-2']);
  });

  it('a quote created through HAProxy reaches a maker connected through HAProxy, who offers; the taker settles', async () => {
    const client = new RfqClient(ready.base_url);
    const devnet = async () => (await client.networks()).networks.find((n) => n.chain_id === 31337);
    await waitForAsync(async () => (await devnet()) !== undefined, 60_000, 'network 31337 in the registry');
    const net = (await devnet())!;
    const maker = privateKeyToAccount(generatePrivateKey());
    await run(process.execPath, ['--import', 'tsx', 'bin/ops.ts', 'org:create', '--kind', 'maker', '--name', 'Scaled maker', '--owner', maker.address], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, DATABASE_URL: ready.database_url },
    });
    const seen: { topic: string; event: string; payload: unknown }[] = [];
    const bot = await runMakerBot({
      client,
      account: maker,
      chainId: 31337,
      mothership: networkContract(net, 'mothership'),
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
        mothership: networkContract(net, 'mothership'),
        pair: networkContract(net, 'opshuns_core'),
      });
      expect(result.offer.maker).toBe(maker.address);
      const events = () => seen.map((m) => `${m.topic.split(':')[0]}:${m.event}`);
      await waitFor(() => events().includes('rfq_maker:rfq_result'), 120_000, "the maker's rfq_result");
      expect(events()).toEqual(expect.arrayContaining(['quotes:rfq_request', 'rfq_maker:rfq_offer', 'rfq_maker:rfq_result']));
      assertNoTakerIdentity(
        seen.filter((m) => !m.event.startsWith('phx_')).map((m) => m.payload),
        { taker: taker.address },
      );
    } finally {
      await bot.stop();
    }
  }, 300_000);

  it('SIGTERM stops everything: no process of the stack alive, its temporary directory gone', async () => {
    stack.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(ready.pids.length).toBeGreaterThanOrEqual(17);
    expect(ready.pids.filter(alive)).toEqual([]);
    expect(existsSync(ready.tmp)).toBe(false);
    expect(err).toContain('stopped; nothing left behind');
  }, 180_000);
});
