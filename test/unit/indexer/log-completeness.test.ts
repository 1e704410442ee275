import { bytesToHex, type Hex } from 'viem';
import { Bloom, bloomBits } from '../../../indexer/rpc/bloom';
import type { LightBlock, RpcLog } from '../../../indexer/rpc/rpc';
import { createBloomChecker } from '../../../indexer/sync/log-completeness';
import { FakeNode, makeBlocks } from './fake-chain';

/**
 * The completeness proof of a logs answer, on headers whose blooms are built here the way a node
 * builds them (three bits per address and per topic of each log).
 */
const PAIR: Hex = '0x00000000000000000000000000000000000000aa';
const OTHER: Hex = '0x00000000000000000000000000000000000000bb';
const TOPIC: Hex = `0x${'11'.repeat(32)}`;
const UNWATCHED_TOPIC: Hex = `0x${'22'.repeat(32)}`;

function bloomOf(items: Hex[]): Hex {
  const bytes = new Uint8Array(256);
  for (const item of items) for (const bit of bloomBits(item)) bytes[255 - (bit >> 3)] |= 1 << (bit & 7);
  return bytesToHex(bytes);
}

function logAt(block: LightBlock, address: Hex, logIndex = 0): RpcLog {
  return {
    address,
    topics: [TOPIC],
    data: '0x',
    blockNumber: `0x${block.number.toString(16)}`,
    blockHash: block.hash,
    transactionHash: `0x${'33'.repeat(32)}`,
    logIndex: `0x${logIndex.toString(16)}`,
  };
}

/** Blocks 1..6; blocks 2, 4 and 5 hold a log of PAIR with the watched topic, block 3 only an unwatched event of PAIR. */
function chain(): { blocks: LightBlock[]; logs: RpcLog[] } {
  const blocks = makeBlocks('a', 1, 6).map((b) => ({ ...b, logsBloom: bloomOf([]) }));
  for (const n of [2, 4, 5]) blocks[n - 1].logsBloom = bloomOf([PAIR, TOPIC]);
  blocks[2].logsBloom = bloomOf([PAIR, UNWATCHED_TOPIC]);
  return { blocks, logs: [2, 4, 5].map((n) => logAt(blocks[n - 1], PAIR)) };
}

describe('header blooms', () => {
  it('hold the items a node set and not others', () => {
    const bloom = Bloom.parse(bloomOf([PAIR, TOPIC]))!;
    expect(bloom.mayContain(bloomBits(PAIR))).toBe(true);
    expect(bloom.mayContain(bloomBits(TOPIC))).toBe(true);
    expect(bloom.mayContain(bloomBits(OTHER))).toBe(false);
    expect(Bloom.parse(bloomOf([]))!.empty).toBe(true);
    expect(Bloom.parse('0x12')).toBeNull();
  });
});

describe('the completeness proof of a logs answer', () => {
  const checker = createBloomChecker([TOPIC]);

  it('keeps only blocks whose bloom may hold a watched topic', () => {
    const { blocks } = chain();
    const index = checker.index(blocks);
    expect([...index.blocks.keys()]).toEqual([2, 4, 5]);
    expect(index.read).toEqual([[1, 6]]);
  });

  it('finds the blocks a clamped answer lacks: the suffix above its last log', () => {
    const { blocks, logs } = chain();
    const index = checker.index(blocks);
    // A backend whose head is block 4 answered [1, 6]: block 5's log is missing.
    expect(checker.suspects(logs.slice(0, 2), index, [PAIR, OTHER], 1, 6)).toEqual([{ number: 5, hash: blocks[4].hash, addresses: [PAIR] }]);
    expect(checker.suspects(logs, index, [PAIR, OTHER], 1, 6)).toEqual([]);
    // Nothing at all: every block whose bloom announces PAIR with the topic.
    expect(checker.suspects([], index, [PAIR], 1, 6).map((s) => s.number)).toEqual([2, 4, 5]);
  });

  it('refuses an answer the blocks, read by hash, prove incomplete', async () => {
    const { blocks, logs } = chain();
    const node = new FakeNode();
    node.setChain(blocks);
    node.logs = logs;
    const check = checker.answerCheck(node, checker.index(blocks), [PAIR], 1, 6);
    expect(await check(logs.slice(0, 2))).toMatchObject({ cls: 'incomplete_answer' });
    expect(await check(logs)).toBeNull();
  });

  it('accepts an answer when the read by hash finds nothing: the bloom was a false positive', async () => {
    const { blocks, logs } = chain();
    const node = new FakeNode();
    node.setChain(blocks);
    // Block 5's bloom says PAIR and the topic, but the node holds no such log there (another contract's topic, say).
    node.logs = logs.slice(0, 2);
    const check = checker.answerCheck(node, checker.index(blocks), [PAIR], 1, 6);
    expect(await check(logs.slice(0, 2))).toBeNull();
    expect(node.calls).toContain(`logs:${blocks[4].hash}`);
  });

  it('refuses logs naming another hash, or a block whose bloom holds none of the watched topics', async () => {
    const { blocks, logs } = chain();
    const node = new FakeNode();
    const check = checker.answerCheck(node, checker.index(blocks), [PAIR], 1, 6);
    const forked = { ...logs[2], blockHash: `0x${'44'.repeat(32)}` as Hex };
    expect(await check([logs[0], logs[1], forked])).toMatchObject({ cls: 'lagging_backend' });
    expect(await check([...logs, logAt(blocks[0], PAIR, 7)])).toMatchObject({ cls: 'lagging_backend' });
  });
});
