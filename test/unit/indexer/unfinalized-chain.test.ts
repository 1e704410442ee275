import { ChainInvariantError, UnfinalizedChain } from '../../../indexer/sync/unfinalized-chain';
import { makeBlocks } from './fake-chain';

describe('UnfinalizedChain', () => {
  const blocks = makeBlocks('a', 10, 20);

  it('holds only blocks that link to their parent', () => {
    expect(() => new UnfinalizedChain(blocks)).not.toThrow();
    const gap = [blocks[0], blocks[2]];
    expect(() => new UnfinalizedChain(gap)).toThrow(ChainInvariantError);
    const wrongParent = [blocks[0], { ...blocks[1], parentHash: blocks[1].hash }];
    expect(() => new UnfinalizedChain(wrongParent)).toThrow(ChainInvariantError);
  });

  it('appends only what extends the tip, and changes nothing when refusing', () => {
    const c = new UnfinalizedChain(blocks.slice(0, 5));
    expect(() => c.append(blocks.slice(6, 8))).toThrow(ChainInvariantError);
    expect(c.tip?.number).toBe(14);
    c.append(blocks.slice(5, 8));
    expect(c.tip?.number).toBe(17);
  });

  it('rewinds to an ancestor in the window and returns the orphans', () => {
    const c = new UnfinalizedChain(blocks);
    expect(c.rewindTo(blocks[3]).map((b) => b.number)).toEqual([14, 15, 16, 17, 18, 19, 20]);
    expect(c.tip?.number).toBe(13);
    expect(() => c.rewindTo(makeBlocks('b', 12, 12)[0])).toThrow(ChainInvariantError);
  });

  it('finalizes up to a block that becomes the base, never emptying the window', () => {
    const c = new UnfinalizedChain(blocks);
    expect(c.finalizeTo(15).map((b) => b.number)).toEqual([10, 11, 12, 13, 14]);
    expect(c.base?.number).toBe(15);
    c.finalizeTo(99);
    expect(c.all().map((b) => b.number)).toEqual([20]);
    expect(c.get(20)?.hash).toBe(blocks[10].hash);
    expect(c.get(19)).toBeNull();
  });
});
