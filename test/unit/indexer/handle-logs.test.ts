import type { DecodedLog } from '../../../indexer/chain-events/decode-log';
import type { LogMeta } from '../../../indexer/types';
import { handleLogs } from '../../../indexer/chain-events/handle-logs';
import type { Hex } from '../../../indexer/rpc/rpc';

const PAIR = '0x1111111111111111111111111111111111111111' as Hex;
const ALICE = '0xAAaAaAaaAaAaAaaAaAAAAAAAAaaaAaAaAaaAaaAa' as Hex;
const BOB = '0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB' as Hex;
const ZERO = '0x0000000000000000000000000000000000000000' as Hex;

let logIndex = 0;
const meta = (block: number): LogMeta => ({
  address: PAIR,
  blockNumber: block,
  blockHash: `0x${String(block).padStart(64, '0')}` as Hex,
  logIndex: logIndex++,
  txHash: `0x${'ab'.repeat(32)}` as Hex,
});
const ts = new Map([1, 2, 3, 4].map((n) => [n, 1000 + n]));

describe('handleLogs', () => {
  it('folds transfers into one net delta per holder and id, keeping zero deltas and skipping the zero address', () => {
    const logs: DecodedLog[] = [
      { kind: 'Transfer', meta: meta(1), caller: ALICE, sender: ZERO, receiver: ALICE, id: 7n, amount: 10n },
      { kind: 'Transfer', meta: meta(2), caller: ALICE, sender: ALICE, receiver: BOB, id: 7n, amount: 4n },
      { kind: 'Transfer', meta: meta(3), caller: BOB, sender: BOB, receiver: ALICE, id: 7n, amount: 4n },
    ];
    const c = handleLogs(logs, ts);
    expect(c.indexer_transfers).toHaveLength(3);
    // Transfers live in their own table only.
    expect(c.indexer_events).toEqual([]);
    expect(c.indexer_transfers[0]).toMatchObject({ option_id: '7', amount: '10', block_timestamp: 1001 });
    const byHolder = Object.fromEntries(c.indexer_balances.map((b) => [b.holder, b]));
    expect(Object.keys(byHolder).sort()).toEqual([ALICE, BOB].sort());
    expect(byHolder[ALICE]).toMatchObject({ delta: '10', first_block: 1, last_block: 3 });
    expect(byHolder[BOB]).toMatchObject({ delta: '0', first_block: 2, last_block: 3 });
  });

  it('gives orders their final state in the batch: placed rows carry it, earlier orders get updates', () => {
    const logs: DecodedLog[] = [
      { kind: 'OrderPlaced', meta: meta(1), orderId: 1n, owner: ALICE, id: 7n, isBuy: true, price: 5n, amount: 10n },
      { kind: 'OrderFilled', meta: meta(2), orderId: 1n, owner: ALICE, filler: BOB, id: 7n, amount: 4n, price: 5n, remaining: 6n },
      { kind: 'OrderFilled', meta: meta(2), orderId: 9n, owner: BOB, filler: ALICE, id: 7n, amount: 3n, price: 5n, remaining: 0n },
      { kind: 'OrderCancelled', meta: meta(3), orderId: 8n, owner: BOB, remaining: 2n },
    ];
    const c = handleLogs(logs, ts);
    expect(c.indexer_orders.placed).toEqual([
      expect.objectContaining({ order_id: '1', amount: '10', remaining: '6', state: 'open', placed_block: 1, last_block: 2 }),
    ]);
    expect(c.indexer_orders.updates).toEqual([
      expect.objectContaining({ order_id: '9', remaining: '0', state: 'filled', last_block: 2 }),
      expect.objectContaining({ order_id: '8', remaining: '0', state: 'cancelled', last_block: 3 }),
    ]);
  });

  it('turns pair creation and settlement logs into rows with JSON-safe arguments', () => {
    const logs: DecodedLog[] = [
      { kind: 'PairCreated', meta: meta(1), pair: BOB, token0: ALICE, token1: ZERO, premiumToken: ZERO },
      {
        kind: 'PackageExecuted',
        meta: meta(4),
        takerAddressHash: `0x${'cd'.repeat(32)}` as Hex,
        maker: ALICE,
        taker: BOB,
        offerDigest: `0x${'ef'.repeat(32)}` as Hex,
        premiumToken: ZERO,
        packagePremium: 10n ** 30n,
        makerPaysTaker: false,
        nonce: 3n,
        referrer: ZERO,
        directions: [1, 0],
      },
    ];
    const c = handleLogs(logs, ts);
    expect(c.indexer_pairs).toEqual([expect.objectContaining({ address: BOB, factory: PAIR, created_block: 1 })]);
    expect(c.indexer_settlements).toEqual([
      expect.objectContaining({ package_premium: '1000000000000000000000000000000', directions: [1, 0], block_timestamp: 1004 }),
    ]);
    expect(JSON.parse(JSON.stringify(c.indexer_events[1].args))).toMatchObject({ packagePremium: '1000000000000000000000000000000', directions: [1, 0] });
  });

  it('is pure: the same logs give the same changeset', () => {
    const logs: DecodedLog[] = [{ kind: 'Transfer', meta: meta(1), caller: ALICE, sender: ZERO, receiver: ALICE, id: 1n, amount: 1n }];
    expect(handleLogs(logs, ts)).toEqual(handleLogs(logs, ts));
  });

  it('refuses a log without a block timestamp rather than inventing one', () => {
    const logs: DecodedLog[] = [{ kind: 'Transfer', meta: meta(9), caller: ALICE, sender: ZERO, receiver: ALICE, id: 1n, amount: 1n }];
    expect(() => handleLogs(logs, ts)).toThrow(/no timestamp for block 9/);
  });
});
