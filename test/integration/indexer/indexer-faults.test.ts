import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { buildApp, request } from '../../support/http';
import { serviceCommand } from '../../support/spawn-service';
import { cursorOf, mineBlocks, mint, openHarness, optionId, runIndexer, waitFor, waitForHead, type Harness } from './harness';
import { expectMirrorsChain } from './mirror';
import { startTcpProxy, type TcpProxy } from './tcp-proxy';

/**
 * Faults on real components: the RPC going away behind a TCP proxy, a write failing halfway
 * through its transaction, and the indexer process killed with SIGKILL in the middle of a backfill.
 */
let h: Harness;
let app: ReturnType<typeof buildApp>['app'];
const pair = () => h.chain.addresses.pair;
const ROOT = path.resolve(__dirname, '../../..');

/** Activity spread over many blocks: `n` mints to rotating holders, each followed by empty blocks. */
async function activity(n: number, gap: number): Promise<void> {
  const id = await optionId(h.chain, 2500n);
  for (let i = 0; i < n; i++) {
    await mint(h.chain, pair(), 1 + (i % 4), id, BigInt(i + 1));
    await mineBlocks(h.chain, gap);
  }
}

beforeAll(async () => {
  h = await openHarness({ INDEXER_STATUS_STALE_MS: '5000' });
  app = buildApp(h.env).app;
}, 60_000);

afterAll(async () => {
  await h?.close();
});

describe('indexer faults', () => {
  let proxy: TcpProxy;
  afterEach(async () => {
    await proxy?.close();
  });

  it('reports 503 while the RPC is down, recovers by itself, and leaves no gap', async () => {
    proxy = await startTcpProxy(h.chain.rpcUrl);
    await mint(h.chain, pair(), 1, await optionId(h.chain, 100n), 5n);
    await h.register({ rpc_urls: [proxy.url], confirmations: 1 });
    const ix = await runIndexer(h.env);
    try {
      await waitForHead(h, 1);
      await waitFor(
        'status 200',
        async () => request(app).get('/api/indexer/status'),
        (r) => r.status === 200,
      );

      await proxy.stop();
      const down = await waitFor(
        'status 503',
        async () => request(app).get('/api/indexer/status'),
        (r) => r.status === 503,
      );
      // Fixed words and a code; the RPC's own error text stays in the logs.
      expect(down.body).toEqual({
        error: 'indexer unavailable: RPC of chain 31337 does not answer',
        code: 'indexer_unavailable',
        details: [{ path: 'networks.31337', message: 'RPC of chain 31337 does not answer' }],
        request_id: expect.any(String),
      });
      const raw: { last_error: string | null; error_code: string | null }[] = await h.env.db.query(
        `SELECT last_error, error_code FROM indexer_status WHERE chain_id = 31337`,
      );
      expect(raw[0].error_code).toBe('rpc_unavailable');
      expect(raw[0].last_error).toBeTruthy();
      expect(JSON.stringify(down.body)).not.toContain(raw[0].last_error!.slice(0, 40));
      await request(app).get('/api/indexer/cores').expect(503);
      // The chain moves on while the indexer cannot see it.
      await mint(h.chain, pair(), 2, await optionId(h.chain, 200n), 6n);
      await mineBlocks(h.chain, 3);

      await proxy.start();
      const up = await waitFor(
        'status 200 again',
        async () => request(app).get('/api/indexer/status'),
        (r) => r.status === 200,
      );
      expect(up.body.networks[0].chain_id).toBe(31337);
      const head = await waitForHead(h, 1);
      await expectMirrorsChain(h.chain, h.env, head - 1);
    } finally {
      await ix.stop();
    }
  });

  it('retries a batch whose transaction fails halfway, writing it exactly once', async () => {
    await activity(6, 2);
    // The third balance write of this indexer fails inside its transaction, after the cursor,
    // events and transfers of the batch were written: all of it must roll back and be redone.
    await h.env.db.query(`CREATE SEQUENCE test_fault_seq`);
    await h.env.db.query(`
      CREATE FUNCTION test_fault() RETURNS trigger AS $$
      BEGIN IF nextval('test_fault_seq') = 3 THEN RAISE EXCEPTION 'injected fault'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql`);
    await h.env.db.query(`CREATE TRIGGER test_fault BEFORE INSERT ON indexer_balances FOR EACH STATEMENT EXECUTE FUNCTION test_fault()`);
    await h.env.db.query(`DELETE FROM indexer_cursors`);
    await h.register({ rpc_urls: [h.chain.rpcUrl], confirmations: 1 });
    const ix = await runIndexer(h.env, { config: { INDEXER_INITIAL_BLOCK_RANGE: 3, INDEXER_MAX_BLOCK_RANGE: 3 } });
    try {
      const head = await waitForHead(h, 1);
      const [{ n }] = await h.env.db.query(`SELECT last_value::int AS n FROM test_fault_seq`);
      expect(n).toBeGreaterThan(3);
      await expectMirrorsChain(h.chain, h.env, head - 1);
    } finally {
      await ix.stop();
      await h.env.db.query(`DROP TRIGGER test_fault ON indexer_balances`);
    }
  });

  it('resumes after SIGKILL in the middle of a backfill with no duplicate and no gap', async () => {
    await activity(10, 25);
    await h.register({ rpc_urls: [h.chain.rpcUrl], confirmations: 1 });
    await h.env.db.query(`DELETE FROM indexer_cursors`);
    const head = Number(await h.chain.rpc<string>('eth_blockNumber'));
    const env = {
      PATH: process.env.PATH ?? '',
      ROLES: 'indexer',
      DEVCHAIN: 'off',
      LOG_LEVEL: 'warn',
      DATABASE_URL: h.env.config.DATABASE_URL,
      REDIS_URL: h.env.config.REDIS_URL,
      REDIS_PREFIX: h.env.config.REDIS_PREFIX,
      // One block per range and one write per range: a long backfill to land the kill in.
      INDEXER_INITIAL_BLOCK_RANGE: '1',
      INDEXER_MAX_BLOCK_RANGE: '1',
      INDEXER_PREFETCH_RANGES: '0',
      INDEXER_POLL_INTERVAL_MS: '50',
    };
    // One process that SIGKILL reaches (compiled from the run's build, or tsx as a loader, never
    // tsx's CLI, whose grandchild it would orphan).
    const [command, args] = serviceCommand();
    const child: ChildProcess = spawn(command, args, { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<NodeJS.Signals | null>((r) => child.once('exit', (_c, signal) => r(signal)));
    try {
      // Let it write part of the history, then kill it without warning.
      const midway = await waitFor(
        'backfill under way',
        () => cursorOf(h.env, 31337),
        (c) => c !== null && c.block_hash !== null && c.block_number > 20,
        60_000,
      ).catch((err: Error) => {
        throw new Error(`${err.message}; indexer stderr: ${stderr.slice(-2000)}`);
      });
      child.kill('SIGKILL');
      expect(await exited).toBe('SIGKILL');
      const killedAt = (await cursorOf(h.env, 31337))!.block_number;
      expect(killedAt).toBeGreaterThanOrEqual(midway!.block_number);
      expect(killedAt).toBeLessThan(head - 1);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
    const ix = await runIndexer(h.env);
    try {
      const tip = await waitForHead(h, 1);
      await expectMirrorsChain(h.chain, h.env, tip - 1);
    } finally {
      await ix.stop();
    }
  }, 120_000);

  it('starts a network over when the registry changes its contract set', async () => {
    await h.register({ rpc_urls: [h.chain.rpcUrl], confirmations: 1 });
    const ix = await runIndexer(h.env);
    try {
      await waitForHead(h, 1);
      const before: { contract_set: string }[] = await h.env.db.query(`SELECT contract_set FROM indexer_cursors`);
      expect(before).toEqual([{ contract_set: expect.stringContaining(`mothership=${h.chain.addresses.mothership.toLowerCase()}`) }]);
      // Point the registry's mothership elsewhere: the tailer restarts and re-indexes from scratch.
      await h.register({ rpc_urls: [h.chain.rpcUrl], confirmations: 1, contracts: { ...h.chain.network.contracts, mothership: h.chain.addresses.bondVault } });
      const after = await waitFor(
        'new contract set',
        async () => (await h.env.db.query(`SELECT contract_set, block_number FROM indexer_cursors`)) as { contract_set: string; block_number: string }[],
        // The vault is in every set (as bondVault=...): only `mothership=<vault>` says the switch happened.
        (rows) => rows.length === 1 && rows[0].contract_set.includes(`mothership=${h.chain.addresses.bondVault.toLowerCase()}`),
      );
      expect(after).toHaveLength(1);
      const head = await waitForHead(h, 1);
      await expectMirrorsChain(h.chain, h.env, head - 1, h.chain.addresses.bondVault);
    } finally {
      await ix.stop();
      await h.register({ rpc_urls: [h.chain.rpcUrl], confirmations: 1 });
    }
  });
});
