import { ChainInconsistencyError, ChainReplacedError, ReorgTooDeepError } from '../../../indexer/errors';
import type { StoredHash } from '../../../indexer/store/indexer-store';
import { createRangeSizer } from '../../../indexer/rpc/log-range';
import { createRealtimeSync, type RealtimeEvent } from '../../../indexer/sync/realtime-sync';
import { sourcesFor } from '../../../indexer/sync/sources';
import { UnfinalizedChain } from '../../../indexer/sync/unfinalized-chain';
import { EVENT_SELECTORS } from '../../../indexer/chain-events/decode-log';
import { createBloomChecker } from '../../../indexer/sync/log-completeness';
import { createLogger } from '../../../shared/platform/logging';
import { FakeNode, makeBlocks } from './fake-chain';

const logger = createLogger({ level: 'silent' });

/**
 * A window of the `window` blocks ending at `local` on chain `a` (0..length-1), and checkpoints
 * (older stored hashes) at the given heights below it.
 */
function setup(opts: {
  window: number;
  local: number;
  batch?: number;
  checkpoints?: number[];
  maxDepth?: number;
  startBlock?: number | null;
  length?: number;
  /** The genesis recorded for the network; by default the node's own block 0 (null: none recorded). */
  genesis?: string | null;
}) {
  const node = new FakeNode();
  const main = makeBlocks('a', 0, (opts.length ?? 41) - 1);
  node.setChain(main);
  const chain = new UnfinalizedChain(main.slice(Math.max(0, opts.local - opts.window + 1), opts.local + 1));
  const checkpoints: StoredHash[] = (opts.checkpoints ?? []).map((n) => ({ number: n, hash: main[n].hash }));
  const sync = createRealtimeSync({
    rpc: node,
    sources: sourcesFor(31337, {}, { factory: [], mothership: [] }),
    chain,
    window: opts.window,
    maxDepth: opts.maxDepth ?? 1000,
    startBlock: opts.startBlock === undefined ? null : opts.startBlock,
    genesis: (opts.genesis === undefined ? main[0].hash : opts.genesis) as `0x${string}` | null,
    checkpointsBelow: async (below, limit) =>
      checkpoints
        .filter((c) => c.number < below)
        .sort((a, b) => b.number - a.number)
        .slice(0, limit),
    batchBlocks: opts.batch ?? 100,
    sizer: createRangeSizer({ initial: 100, max: 1000, targetLogs: 1000 }),
    maxAddresses: 10,
    checker: createBloomChecker(EVENT_SELECTORS),
    logger,
  });
  return { node, main, chain, sync };
}

type Reorg = Extract<RealtimeEvent, { type: 'reorg' }>;

/** Runs one sync pass the way the tailer does: each event is applied before the next is asked for. */
async function pass(s: ReturnType<typeof setup>, head = s.node.canonical[s.node.canonical.length - 1 - s.node.lagBy]): Promise<RealtimeEvent[]> {
  const seen: RealtimeEvent[] = [];
  for await (const ev of s.sync.sync(head)) {
    seen.push(ev);
    if (ev.type === 'block') s.chain.append(ev.blocks);
    else if (ev.type === 'reorg') {
      // As the tailer does: rewind inside the window, restart the window at an older ancestor.
      if (ev.ancestor && s.chain.get(ev.ancestor.number)?.hash === ev.ancestor.hash) s.chain.rewindTo(ev.ancestor);
      else if (ev.ancestor) s.chain.resetTo(ev.ancestor);
      else s.chain.clear();
    } else s.chain.finalizeTo(ev.block.number);
  }
  return seen;
}

describe('realtime sync', () => {
  it('extends the tip with linked blocks, in batches, and finalizes behind them', async () => {
    const s = setup({ window: 4, local: 20, batch: 5 });
    const first = await pass(s);
    expect(first.map((e) => e.type)).toEqual(['block', 'finalize']);
    const block = first[0] as Extract<RealtimeEvent, { type: 'block' }>;
    expect(block.blocks.map((b) => b.number)).toEqual([21, 22, 23, 24, 25]);
    expect(s.chain.base?.number).toBe(22);
    expect(s.chain.tip?.number).toBe(25);
    while (s.chain.tip!.number < 40) await pass(s);
    expect(s.chain.all().map((b) => b.number)).toEqual([37, 38, 39, 40]);
    expect(await pass(s)).toEqual([]);
  });

  it('walks back to the common ancestor when a new block does not extend the tip', async () => {
    const s = setup({ window: 6, local: 30 });
    const fork = makeBlocks('b', 28, 32, s.main[27]);
    s.node.setChain([...s.main.slice(0, 28), ...fork]);
    const events = await pass(s);
    expect(events).toHaveLength(1);
    const reorg = events[0] as Reorg;
    expect(reorg.type).toBe('reorg');
    expect(reorg.ancestor?.number).toBe(27);
    expect(reorg.depth).toBe(3);
    expect(reorg.orphaned.map((b) => b.number)).toEqual([28, 29, 30]);
    expect(s.chain.tip?.hash).toBe(s.main[27].hash);
    const next = await pass(s);
    expect((next[0] as Extract<RealtimeEvent, { type: 'block' }>).blocks.map((b) => b.hash)).toEqual(fork.map((b) => b.hash));
  });

  it('takes a node whose block 0 changed for a new chain, not a reorg: nothing is rolled back', async () => {
    const s = setup({ window: 6, local: 30, startBlock: 5 });
    // A devchain started again: every block differs, down to genesis, and its head is below our tip.
    s.node.setChain(makeBlocks('restarted', 0, 28));
    await expect(pass(s)).rejects.toBeInstanceOf(ChainReplacedError);
    expect(s.chain.tip?.hash).toBe(s.main[30].hash);
    // With no genesis recorded (a cursor older than the record) it stays what it was: a reorg.
    const old = setup({ window: 6, local: 30, startBlock: 5, genesis: null });
    old.node.setChain(makeBlocks('restarted', 0, 28));
    expect((await pass(old)).map((e) => e.type)).toEqual(['reorg']);
  });

  it('detects a reorg to a shorter chain from a head below the tip', async () => {
    const s = setup({ window: 6, local: 30 });
    const fork = makeBlocks('b', 29, 29, s.main[28]);
    s.node.setChain([...s.main.slice(0, 29), ...fork]);
    const events = await pass(s);
    expect(events.map((e) => e.type)).toEqual(['reorg']);
    expect((events[0] as Reorg).ancestor?.number).toBe(28);
  });

  it('does not mistake a lagging provider (head below our tip, on our chain) for a reorg', async () => {
    const s = setup({ window: 6, local: 40 });
    s.node.lagBy = 6;
    expect(await pass(s)).toEqual([]);
    expect(s.chain.tip?.number).toBe(40);
    s.node.lagBy = 20;
    expect(await pass(s)).toEqual([]);
  });

  it('refuses to call a reorg deep when our base is still canonical (provider mixing forks)', async () => {
    const s = setup({ window: 4, local: 30 });
    // The node names a head whose ancestry never meets our window, yet still serves our blocks by number.
    const stray = makeBlocks('x', 20, 31);
    for (const b of stray) s.node.known.set(b.hash, b);
    await expect(pass(s, stray[stray.length - 1])).rejects.toBeInstanceOf(ChainInconsistencyError);
    expect(s.chain.tip?.number).toBe(30);
  });

  it('repairs a reorg deeper than the window from the newest checkpoint the node still has', async () => {
    const s = setup({ window: 4, local: 30, checkpoints: [10, 20, 24, 26] });
    const fork = makeBlocks('deep', 25, 33, s.main[24]);
    s.node.setChain([...s.main.slice(0, 25), ...fork]);
    const events = await pass(s);
    expect(events.map((e) => e.type)).toEqual(['reorg']);
    const reorg = events[0] as Reorg;
    expect(reorg.ancestor).toEqual(s.main[24]);
    expect(reorg.depth).toBe(6);
    expect(reorg.orphaned.map((b) => b.number)).toEqual([27, 28, 29, 30]);
    // The window restarts at the ancestor and follows the new fork from there.
    expect(s.chain.all()).toEqual([s.main[24]]);
    const next = await pass(s);
    expect((next[0] as Extract<RealtimeEvent, { type: 'block' }>).blocks[0]).toEqual(fork[0]);
  });

  it('compares stored hashes in batches instead of walking a deep reorg parent by parent', async () => {
    const s = setup({ window: 200, local: 199, length: 200 });
    const fork = makeBlocks('b', 100, 210, s.main[99]);
    s.node.setChain([...s.main.slice(0, 100), ...fork]);
    const events = await pass(s);
    expect((events[0] as Reorg).ancestor?.number).toBe(99);
    expect((events[0] as Reorg).depth).toBe(100);
    expect(s.node.calls.filter((c) => c.startsWith('hash:')).length).toBeLessThanOrEqual(32);
  });

  it('falls back to the block before the start when no stored hash survived', async () => {
    const s = setup({ window: 4, local: 30, checkpoints: [20], startBlock: 12 });
    const fork = makeBlocks('older', 15, 34, s.main[14]);
    s.node.setChain([...s.main.slice(0, 15), ...fork]);
    const reorg = (await pass(s))[0] as Reorg;
    expect(reorg.ancestor).toEqual(s.main[11]);
    expect(reorg.depth).toBe(19);
  });

  it('halts with the command to run when the ancestor is older than the hard limit', async () => {
    const s = setup({ window: 4, local: 30, checkpoints: [10, 20, 24], maxDepth: 8, startBlock: 5 });
    const fork = makeBlocks('deep', 21, 33, s.main[20]);
    s.node.setChain([...s.main.slice(0, 21), ...fork]);
    const err = await pass(s).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ReorgTooDeepError);
    expect((err as ReorgTooDeepError).message).toMatch(/reorganised below block 24, more than INDEXER_REORG_MAX_DEPTH \(8\)/);
    expect((err as ReorgTooDeepError).action).toBe('npm run ops -- indexer:resync --chain 31337 --from-block 5');
    expect(s.chain.tip?.number).toBe(30);
  });

  it('treats headers that do not link as an inconsistent node, not a reorg', async () => {
    const s = setup({ window: 6, local: 30 });
    const broken = [...s.main.slice(0, 33)];
    broken[32] = { ...broken[32], parentHash: makeBlocks('z', 31, 31)[0].hash };
    s.node.setChain(broken);
    await expect(pass(s)).rejects.toBeInstanceOf(ChainInconsistencyError);
  });

  it('checkTip finds a tip replaced while the tailer was away', async () => {
    const s = setup({ window: 6, local: 30 });
    s.node.setChain([...s.main.slice(0, 29), ...makeBlocks('c', 29, 35, s.main[28])]);
    const events: RealtimeEvent[] = [];
    for await (const ev of s.sync.checkTip()) events.push(ev);
    expect(events.map((e) => e.type)).toEqual(['reorg']);
    expect((events[0] as Reorg).ancestor?.number).toBe(28);
  });
});
