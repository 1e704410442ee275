import { topics } from '../../../shared/events';
import { topicEvents } from '../../support/events';
import { ops } from '../../support/ops';
import { expectSameAsFreshIndexer } from './fresh-indexer';
import {
  cursorOf,
  mint,
  openHarness,
  recordCursorMoves,
  optionId,
  pairCall,
  quoteState,
  runIndexer,
  settleQuote,
  waitFor,
  waitForHead,
  type Harness,
} from './harness';
import { expectMirrorsChain } from './mirror';

/**
 * The operator's commands, run as an operator runs them (`npm run ops -- ...` against the
 * service's database) while a real indexer follows a real Hardhat node.
 */
let h: Harness;
let ix: Awaited<ReturnType<typeof runIndexer>> | null = null;
let idA: bigint;
const pair = () => h.chain.addresses.pair;
const addr = (i: number) => h.chain.accounts[i].address;
const nodeHead = () => h.chain.rpc<{ hash: string; number: string }>('eth_getBlockByNumber', ['latest', false]);
const requests = async () => ((await h.env.db.query(`SELECT count(*)::int AS n FROM indexer_resync_requests`)) as { n: number }[])[0].n;

/** Transfers back and forth between wallets 1 and 2, one block each, until stopped. */
function startLoad(): { stop(): Promise<number> } {
  let running = true;
  let sent = 0;
  const loop = (async () => {
    while (running) {
      await pairCall(h.chain, sent % 2 === 0 ? 1 : 2, pair(), 'transfer', [addr(sent % 2 === 0 ? 2 : 1), idA, 1n]);
      sent++;
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return sent;
    },
  };
}

beforeAll(async () => {
  h = await openHarness();
  idA = await optionId(h.chain, 3000n);
  await mint(h.chain, pair(), 1, idA, 20n);
  await mint(h.chain, pair(), 2, idA, 20n);
  await h.register({ confirmations: 0 });
  ix = await runIndexer(h.env);
  await waitForHead(h);
}, 60_000);

afterAll(async () => {
  await ix?.stop();
  await h?.close();
});

describe('npm run ops -- indexer:status', () => {
  it("prints each network's state, cursors, kept hashes, reorg counts and resync requests", async () => {
    const run = await ops(h.env, 'indexer:status');
    expect(run).toMatchObject({ code: 0, stderr: '' });
    const cursor = await cursorOf(h.env, 31337);
    expect(JSON.parse(run.stdout)).toEqual({
      networks: [
        {
          chain_id: 31337,
          name: expect.any(String),
          enabled: true,
          confirmations: 0,
          status: expect.objectContaining({ state: expect.stringMatching(/^(backfill|realtime)$/), rpc_ok: true, error_code: null, action: null }),
          cursors: [expect.objectContaining({ block_number: expect.any(Number), start_block: expect.any(Number) })],
          blocks_kept: { window_from: expect.any(Number), window_to: expect.any(Number), window_blocks: expect.any(Number), oldest_checkpoint: null },
          reorgs: { count: 0, deepest: 0, last_depth: null, last_ancestor_block: null, last_at: null },
          resync_requests: [],
        },
      ],
    });
    expect(JSON.parse(run.stdout).networks[0].cursors[0].block_number).toBeGreaterThanOrEqual(cursor!.block_number);
  });

  it('names what is wrong with its arguments', async () => {
    expect(await ops(h.env, 'indexer:status', '--chain', '999')).toMatchObject({
      code: 65,
      stderr: 'error: network 999 is not a known network (npm run ops -- network:list)\n',
    });
    expect(await ops(h.env, 'indexer:status', '--chain', 'abc')).toMatchObject({
      code: 64,
      stderr: '--chain must be a whole number from 1 to 2147483647, got abc\n',
    });
  });
});

describe('npm run ops -- indexer:resync', () => {
  it('refuses what it cannot serve, and records nothing', async () => {
    const cursor = (await cursorOf(h.env, 31337))!.block_number;
    const cases: [string[], number, string][] = [
      [['--chain', '999', '--from-block', '1'], 65, 'error: network 999 is not a known network (npm run ops -- network:list)\n'],
      [
        ['--chain', '31337', '--from-block', String(cursor + 1000)],
        65,
        `error: network 31337 is indexed up to block ${cursor}: --from-block ${cursor + 1000} is above it, nothing to roll back\n`,
      ],
      [['--chain', '31337'], 64, '--from-block is required\n'],
      [['--from-block', '3'], 64, '--chain is required\n'],
      [['--chain', '31337', '--from-block', '-4'], 64, '--from-block must be a whole number from 0 to 9007199254740991, got -4\n'],
      [['--chain', '31337', '--from-block', '3', '--timeout-seconds', '0'], 64, '--timeout-seconds must be a whole number from 1 to 86400, got 0\n'],
    ];
    // Six CLI processes, each a fresh Node with its TypeScript loader: run them side by side.
    const runs = await Promise.all(cases.map(async ([args]) => ({ args, ...(await ops(h.env, 'indexer:resync', ...args)) })));
    for (const [i, [args, code, stderr]] of cases.entries()) expect(runs[i]).toMatchObject({ args, code, stderr, stdout: '' });
    expect(await requests()).toBe(0);
  }, 90_000);

  it('rolls back and re-syncs from a block under load, while the indexer runs, re-announcing what it re-derives', async () => {
    const settled = await settleQuote(h, { maker: 5, taker: 6 });
    await waitFor(
      'quote filled',
      () => quoteState(h, settled.quoteId),
      (q) => q.state === 'filled',
    );
    const settledAt: { block_number: string }[] = await h.env.db.query(`SELECT block_number FROM indexer_settlements WHERE quote_id = $1`, [settled.quoteId]);
    const fromBlock = Number(settledAt[0].block_number) - 1;
    const cursor = await recordCursorMoves(h.env);

    const load = startLoad();
    let run: Awaited<ReturnType<typeof ops>>;
    try {
      run = await ops(h.env, 'indexer:resync', '--chain', '31337', '--from-block', String(fromBlock), '--timeout-seconds', '60');
    } finally {
      const sent = await load.stop();
      expect(sent).toBeGreaterThan(0);
    }
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(run.stdout)).toMatchObject({
      from_block: fromBlock,
      state: 'done',
      rolled_back_to: fromBlock - 1,
      reopened_quotes: 1,
      outcome: expect.stringContaining(`re-syncing from block ${fromBlock}`),
    });

    const head = await nodeHead();
    await waitFor(
      'caught up after the load',
      () => cursorOf(h.env, 31337),
      (c) => c?.block_hash === head.hash,
    );
    // The cursor went back to the block before --from-block, then forward again.
    const moves = await cursor.moves();
    expect(moves).toContain(fromBlock - 1);
    expect(moves[moves.length - 1]).toBe(Number(head.number));
    // The settlement is still on chain: the quote was reopened by the rollback and filled again, and the taker heard both.
    expect((await quoteState(h, settled.quoteId)).state).toBe('filled');
    const seen = await waitFor(
      'filled again',
      () => topicEvents(h.env, topics.rfqStream(settled.streamHash)),
      (e) => e.length >= 3,
    );
    expect(seen.map((e) => [e.payload.state, e.payload.reorged ?? false])).toEqual([
      ['filled', false],
      ['open', true],
      ['filled', false],
    ]);
    await expectMirrorsChain(h.chain, h.env, Number(head.number));
    await expectSameAsFreshIndexer(h, { addresses: [1, 2, 5, 6].map(addr) });
  }, 120_000);

  it('waits for an indexer that is down; the indexer serves the request when it starts', async () => {
    await ix!.stop();
    ix = null;
    const pending = await ops(h.env, 'indexer:resync', '--chain', '31337', '--from-block', '5', '--no-wait');
    expect(pending.code).toBe(0);
    const request = JSON.parse(pending.stdout);
    expect(request).toMatchObject({ chain_id: 31337, from_block: 5, state: 'pending', done_at: null });
    const timedOut = await ops(h.env, 'indexer:resync', '--chain', '31337', '--from-block', '7', '--timeout-seconds', '1');
    expect(timedOut.code).toBe(65);
    expect(timedOut.stderr).toMatch(
      /^error: no indexer served resync request \d+ of chain 31337 within 1 s; it stays pending and runs as soon as the indexer of that network is up/,
    );

    ix = await runIndexer(h.env);
    const done = await waitFor(
      'requests served',
      async () =>
        (await h.env.db.query(`SELECT id::int AS id, state, rolled_back_to::int AS rolled_back_to FROM indexer_resync_requests WHERE id >= $1 ORDER BY id`, [
          request.id,
        ])) as { state: string; rolled_back_to: number }[],
      (rows) => rows.every((r) => r.state === 'done'),
    );
    // One rollback served both: to the block before the lower of the two.
    expect(done.map((r) => r.rolled_back_to)).toEqual([4, 4]);
    const head = await waitForHead(h);
    await expectMirrorsChain(h.chain, h.env, head);
  });
});
