import { rawRpc } from '../../shared/chain/clients';
import { freePort } from '../support/chain';
import { eventually } from '../support/events';
import { spawnService, type RunningService } from '../support/spawn-service';
import { createTestEnv, type TestEnv } from '../support/test-env';

const CHAIN_ID = 31337;

interface Cursor {
  block_number: number;
  block_hash: string | null;
  genesis_hash: string | null;
}

/**
 * Issue 39: `npm start` again on the same database starts a new devchain (Hardhat keeps its chain
 * in memory), and the indexer took the new chain for a reorg of the old one: `reorg: rolling back
 * to the common ancestor` (depth 51) as a warning. The indexer now knows the chain by its genesis
 * block: a different one is a new chain, and the network starts over with one info line.
 */
describe('npm start again on the same database, with a new devchain', () => {
  let env: TestEnv;
  let port: number;
  const started: RunningService[] = [];

  beforeAll(async () => {
    env = await createTestEnv();
    port = await freePort();
  });
  afterAll(async () => {
    for (const svc of started) await svc.stop('SIGKILL');
    await env.close();
  });

  /** `npm start`: every role and the devchain on the same port, against the test's database. */
  async function npmStart(): Promise<RunningService> {
    const svc = await spawnService(
      {
        DATABASE_URL: env.config.DATABASE_URL,
        REDIS_URL: env.config.REDIS_URL,
        REDIS_PREFIX: env.config.REDIS_PREFIX,
        DEVCHAIN: 'auto',
        DEVCHAIN_PORT: String(port),
        INDEXER_POLL_INTERVAL_MS: '200',
      },
      { timeoutMs: 240_000 },
    );
    started.push(svc);
    return svc;
  }

  const rpcUrl = () => `http://127.0.0.1:${port}`;
  const blockHash = async (n: number | 'latest') =>
    rawRpc<{ hash: string; number: string }>(rpcUrl(), 'eth_getBlockByNumber', [n === 'latest' ? n : `0x${n.toString(16)}`, false], 10_000);
  const cursor = async (): Promise<Cursor | null> => {
    const rows: { block_number: string; block_hash: string | null; genesis_hash: string | null }[] = await env.db.query(
      `SELECT block_number, block_hash, genesis_hash FROM indexer_cursors WHERE chain_id = $1`,
      [CHAIN_ID],
    );
    return rows[0] ? { ...rows[0], block_number: Number(rows[0].block_number) } : null;
  };
  /** Waits until the indexer has the node's chain up to its current head, on the chain whose block 0 is `genesis`. */
  async function indexedToHead(genesis: string): Promise<Cursor> {
    const head = Number((await blockHash('latest')).number);
    return eventually(
      cursor,
      (c) => c !== null && c.genesis_hash === genesis && c.block_number >= head,
      120_000,
      `the indexer at block ${head} of the chain whose genesis is ${genesis}`,
    ) as Promise<Cursor>;
  }
  /** Mines blocks one by one (`hardhat_mine` reserves a range lazily, with headers a tailer does not link). */
  const mine = async (n: number) => {
    for (let i = 0; i < n; i++) await rawRpc(rpcUrl(), 'evm_mine', [], 10_000);
  };
  const pairs = async () =>
    ((await env.db.query(`SELECT address FROM indexer_pairs WHERE chain_id = $1 ORDER BY address`, [CHAIN_ID])) as { address: string }[]).map((r) => r.address);

  it('resets the network with one info line, no reorg, and indexes the new chain', async () => {
    const first = await npmStart();
    const oldGenesis = (await blockHash(0)).hash;
    // A session's worth of blocks on the old chain, so its indexed tip is well above the new chain's head.
    await mine(40);
    await indexedToHead(oldGenesis);
    const pairsBefore = await pairs();
    expect(pairsBefore.length).toBeGreaterThan(0);
    expect(await first.stop('SIGTERM')).toBe(0);

    const second = await npmStart();
    const newGenesis = (await blockHash(0)).hash;
    expect(newGenesis).not.toBe(oldGenesis);
    await indexedToHead(newGenesis);

    // One info line says what happened and why; nothing calls it a reorg.
    const reset = second.lines.filter((l) => typeof l.msg === 'string' && l.msg.includes('is a new chain'));
    expect(reset).toEqual([
      expect.objectContaining({
        level: 'info',
        chain_id: CHAIN_ID,
        recorded_genesis: oldGenesis,
        genesis: newGenesis,
        msg: expect.stringMatching(/^network 31337 is a new chain \(its genesis block differs from the one recorded\): its indexed data is reset/),
      }),
    ]);
    expect(second.lines.filter((l) => /reorg/i.test(String(l.msg)))).toEqual([]);
    expect(second.lines.filter((l) => l.msg === 'indexer step failed; retrying')).toEqual([]);

    // Everything stored for the network is of the new chain, and indexing goes on with it.
    await mine(3);
    const now = await indexedToHead(newGenesis);
    expect(now.block_hash).toBe((await blockHash(now.block_number)).hash);
    const stored: { number: string; hash: string }[] = await env.db.query(`SELECT number, hash FROM indexer_blocks WHERE chain_id = $1`, [CHAIN_ID]);
    expect(stored.length).toBeGreaterThan(0);
    for (const b of stored) expect(b.hash).toBe((await blockHash(Number(b.number))).hash);
    // The deploy's pair, created again on the new chain at the same address, is indexed from it.
    expect(await pairs()).toEqual(pairsBefore);
    expect(await second.stop('SIGTERM')).toBe(0);
    // Nothing raw on stderr, either time (a pg warning, say, is a JSON line the test environment checks).
    expect([first.stderr(), second.stderr()]).toEqual(['', '']);
  }, 600_000);
});
