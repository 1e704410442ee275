import { BackfillReorgedError, ChainInconsistencyError } from '../../../indexer/errors';
import { createRangeSizer } from '../../../indexer/rpc/log-range';
import type { LightBlock } from '../../../indexer/rpc/rpc';
import { historicalSync, type HistoricalBatch } from '../../../indexer/sync/historical-sync';
import { sourcesFor } from '../../../indexer/sync/sources';
import { EVENT_SELECTORS } from '../../../indexer/chain-events/decode-log';
import { createBloomChecker } from '../../../indexer/sync/log-completeness';
import { createLogger } from '../../../shared/platform/logging';
import { FakeNode, makeBlocks } from './fake-chain';

const logger = createLogger({ level: 'silent' });

function setup(opts: { denseFrom?: number; after?: LightBlock | null } = {}) {
  const node = new FakeNode();
  const main = makeBlocks('a', 0, 40);
  node.setChain(main);
  const sync = (from: number, to: number) =>
    historicalSync(
      {
        rpc: node,
        sources: sourcesFor(31337, { pair_factory: '0x00000000000000000000000000000000000000fa' }, { factory: ['pair_factory'], mothership: [] }),
        sizer: createRangeSizer({ initial: 5, max: 5, targetLogs: 1000 }),
        prefetch: 0,
        signal: new AbortController().signal,
        maxAddresses: 10,
        checker: createBloomChecker(EVENT_SELECTORS),
        logger,
        after: opts.after === undefined ? main[from - 1] : opts.after,
        denseFrom: opts.denseFrom ?? Number.MAX_SAFE_INTEGER,
      },
      from,
      to,
    );
  return { node, main, sync };
}

describe('historical sync', () => {
  it('stops with BackfillReorgedError when a range no longer continues the one written before it', async () => {
    const s = setup();
    const seen: HistoricalBatch[] = [];
    const run = (async () => {
      for await (const batch of s.sync(1, 30)) {
        seen.push(batch);
        // The chain changes under the backfill once its first range is written.
        if (seen.length === 1) s.node.setChain([...s.main.slice(0, 3), ...makeBlocks('b', 3, 40, s.main[2])]);
      }
    })();
    const err = await run.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BackfillReorgedError);
    expect((err as Error).message).toMatch(/^block 5 changed under the backfill/);
    expect(seen.map((b) => [b.from, b.to])).toEqual([[1, 5]]);
  });

  it('refuses a first range that does not continue the indexed tip', async () => {
    const s = setup({ after: makeBlocks('old', 0, 0)[0] });
    await expect(s.sync(1, 10).next()).rejects.toBeInstanceOf(BackfillReorgedError);
  });

  it('retries a range whose last block changed while its logs were read, instead of handing it out', async () => {
    const s = setup();
    const getLogs = s.node.getLogs.bind(s.node);
    s.node.getLogs = async (f) => {
      s.node.setChain([...s.main.slice(0, 4), ...makeBlocks('c', 4, 40, s.main[3])]);
      return getLogs(f);
    };
    await expect(s.sync(1, 10).next()).rejects.toBeInstanceOf(ChainInconsistencyError);
  });

  it('reads every header of the ranges within reorg reach, linked, and only range ends below it', async () => {
    const s = setup({ denseFrom: 8 });
    const batches: HistoricalBatch[] = [];
    for await (const b of s.sync(1, 15)) batches.push(b);
    expect(batches.map((b) => b.dense.map((d) => d.number))).toEqual([[], [8, 9, 10], [11, 12, 13, 14, 15]]);
    expect(batches[0].headers.map((h) => h.number).sort((a, b) => a - b)).toEqual([0, 5]);
    expect(batches[2].dense).toEqual(s.main.slice(11, 16));
  });
});
