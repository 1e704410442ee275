import { ChainInconsistencyError, DeepReorgError } from '../../../indexer/errors';
import { createRangeSizer } from '../../../indexer/rpc/log-range';
import { createRealtimeSync, type RealtimeEvent } from '../../../indexer/sync/realtime-sync';
import { sourcesFor } from '../../../indexer/sync/sources';
import { UnfinalizedChain } from '../../../indexer/sync/unfinalized-chain';
import { createLogger } from '../../../shared/logging';
import { FakeNode, makeBlocks } from './fake-chain';

const logger = createLogger({ level: 'silent' });

function setup(opts: { confirmations: number; local: number; batch?: number }) {
  const node = new FakeNode();
  const main = makeBlocks('a', 0, 40);
  node.setChain(main);
  const chain = new UnfinalizedChain(main.slice(Math.max(0, opts.local - opts.confirmations), opts.local + 1));
  const sync = createRealtimeSync({
    rpc: node,
    sources: sourcesFor(31337, {}, { factory: [], mothership: [] }),
    chain,
    confirmations: opts.confirmations,
    batchBlocks: opts.batch ?? 100,
    sizer: createRangeSizer({ initial: 100, max: 1000, targetLogs: 1000 }),
    maxAddresses: 10,
    logger,
  });
  return { node, main, chain, sync };
}

/** Runs one sync pass the way the tailer does: each event is applied before the next is asked for. */
async function pass(s: ReturnType<typeof setup>, head = s.node.canonical[s.node.canonical.length - 1 - s.node.lagBy]): Promise<RealtimeEvent[]> {
  const seen: RealtimeEvent[] = [];
  for await (const ev of s.sync.sync(head)) {
    seen.push(ev);
    if (ev.type === 'block') s.chain.append(ev.blocks);
    else if (ev.type === 'reorg') s.chain.rewindTo(ev.ancestor);
    else s.chain.finalizeTo(ev.block.number);
  }
  return seen;
}

describe('realtime sync', () => {
  it('extends the tip with linked blocks, in batches, and finalizes behind them', async () => {
    const s = setup({ confirmations: 3, local: 20, batch: 5 });
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
    const s = setup({ confirmations: 5, local: 30 });
    const fork = makeBlocks('b', 28, 32, s.main[27]);
    s.node.setChain([...s.main.slice(0, 28), ...fork]);
    const events = await pass(s);
    expect(events).toHaveLength(1);
    const reorg = events[0] as Extract<RealtimeEvent, { type: 'reorg' }>;
    expect(reorg.type).toBe('reorg');
    expect(reorg.ancestor.number).toBe(27);
    expect(reorg.orphaned.map((b) => b.number)).toEqual([28, 29, 30]);
    expect(s.chain.tip?.hash).toBe(s.main[27].hash);
    const next = await pass(s);
    expect((next[0] as Extract<RealtimeEvent, { type: 'block' }>).blocks.map((b) => b.hash)).toEqual(fork.map((b) => b.hash));
  });

  it('detects a reorg to a shorter chain from a head below the tip', async () => {
    const s = setup({ confirmations: 5, local: 30 });
    const fork = makeBlocks('b', 29, 29, s.main[28]);
    s.node.setChain([...s.main.slice(0, 29), ...fork]);
    const events = await pass(s);
    expect(events.map((e) => e.type)).toEqual(['reorg']);
    expect((events[0] as Extract<RealtimeEvent, { type: 'reorg' }>).ancestor.number).toBe(28);
  });

  it('does not mistake a lagging provider (head below our tip, on our chain) for a reorg', async () => {
    const s = setup({ confirmations: 5, local: 40 });
    s.node.lagBy = 6;
    expect(await pass(s)).toEqual([]);
    expect(s.chain.tip?.number).toBe(40);
    s.node.lagBy = 20;
    expect(await pass(s)).toEqual([]);
  });

  it('refuses to call a reorg deep when our base is still canonical (provider mixing forks)', async () => {
    const s = setup({ confirmations: 3, local: 30 });
    // The node names a head whose ancestry never meets our window, yet still serves our blocks by number.
    const stray = makeBlocks('x', 20, 31);
    for (const b of stray) s.node.known.set(b.hash, b);
    await expect(pass(s, stray[stray.length - 1])).rejects.toBeInstanceOf(ChainInconsistencyError);
    expect(s.chain.tip?.number).toBe(30);
  });

  it('stops with a DeepReorgError when the chain really changed below the window', async () => {
    const s = setup({ confirmations: 3, local: 30 });
    const fork = makeBlocks('deep', 25, 33, s.main[24]);
    s.node.setChain([...s.main.slice(0, 25), ...fork]);
    const err = await pass(s).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DeepReorgError);
    expect((err as DeepReorgError).message).toMatch(/reorganised below block 27/);
    expect(s.chain.tip?.number).toBe(30);
  });

  it('treats headers that do not link as an inconsistent node, not a reorg', async () => {
    const s = setup({ confirmations: 5, local: 30 });
    const broken = [...s.main.slice(0, 33)];
    broken[32] = { ...broken[32], parentHash: makeBlocks('z', 31, 31)[0].hash };
    s.node.setChain(broken);
    await expect(pass(s)).rejects.toBeInstanceOf(ChainInconsistencyError);
  });

  it('checkTip finds a tip replaced while the tailer was away', async () => {
    const s = setup({ confirmations: 5, local: 30 });
    s.node.setChain([...s.main.slice(0, 29), ...makeBlocks('c', 29, 35, s.main[28])]);
    const events: RealtimeEvent[] = [];
    for await (const ev of s.sync.checkTip()) events.push(ev);
    expect(events.map((e) => e.type)).toEqual(['reorg']);
    expect((events[0] as Extract<RealtimeEvent, { type: 'reorg' }>).ancestor.number).toBe(28);
  });
});
