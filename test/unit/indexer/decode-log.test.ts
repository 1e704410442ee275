import fc from 'fast-check';
import { decodeEventLog, encodeAbiParameters, encodeEventTopics, getAddress, type AbiEvent, type Hex } from 'viem';
import {
  orderCancelledEvent,
  orderFilledEvent,
  orderPlacedEvent,
  packageExecutedEvent,
  pairCreatedEvent,
  transferEvent,
} from '../../../shared/chain/abis';
import { decodeLog, EVENT_SELECTORS, type EmitterRole } from '../../../indexer/decode/decode-log';
import type { RpcLog } from '../../../indexer/rpc/rpc';

const EMITTER = '0x1111111111111111111111111111111111111111';
const uint = fc.bigInt({ min: 0n, max: (1n << 256n) - 1n });
const address = fc.uint8Array({ minLength: 20, maxLength: 20 }).map((b) => getAddress(`0x${Buffer.from(b).toString('hex')}`));
const bytes32 = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => `0x${Buffer.from(b).toString('hex')}` as Hex);

/** A log as a node would return it for `event` with `args`. */
function rpcLog(event: AbiEvent, args: Record<string, unknown>): RpcLog {
  const topics = encodeEventTopics({ abi: [event], eventName: event.name, args } as never) as Hex[];
  const dataInputs = event.inputs.filter((i) => !i.indexed);
  const data = encodeAbiParameters(dataInputs, dataInputs.map((i) => args[i.name!]));
  return { address: EMITTER, topics, data, blockNumber: '0x10', blockHash: `0x${'ab'.repeat(32)}`, transactionHash: `0x${'cd'.repeat(32)}`, logIndex: '0x3' };
}

const role = (r: EmitterRole) => (a: string) => (a === EMITTER ? r : null);

/** decodeLog's fields must equal viem's generic decoder on the same log. */
function expectSameAsViem(event: AbiEvent, emitterRole: EmitterRole, args: Record<string, unknown>) {
  const log = rpcLog(event, args);
  const ours = decodeLog(log, role(emitterRole));
  const viem = decodeEventLog({ abi: [event], topics: log.topics as [Hex, ...Hex[]], data: log.data, strict: true }).args as Record<string, unknown>;
  expect(ours).not.toBeNull();
  const { kind, meta, ...fields } = ours!;
  expect(kind).toBe(event.name);
  expect(meta).toEqual({ address: getAddress(EMITTER), blockNumber: 16, blockHash: `0x${'ab'.repeat(32)}`, logIndex: 3, txHash: `0x${'cd'.repeat(32)}` });
  const norm = (v: unknown) => (typeof v === 'string' && v.length === 66 ? v.toLowerCase() : Array.isArray(v) ? v.map(Number) : v);
  expect(Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, norm(v)]))).toEqual(Object.fromEntries(Object.entries(viem).map(([k, v]) => [k, norm(v)])));
}

describe('decodeLog', () => {
  it('decodes every fixed-layout event exactly as the ABI decoder does', () => {
    fc.assert(
      fc.property(address, address, address, uint, uint, uint, uint, fc.boolean(), (a, b, c, x, y, z, w, flag) => {
        expectSameAsViem(transferEvent, 'pair', { caller: a, sender: b, receiver: c, id: x, amount: y });
        expectSameAsViem(orderPlacedEvent, 'pair', { orderId: x, owner: a, id: y, isBuy: flag, price: z, amount: w });
        expectSameAsViem(orderFilledEvent, 'pair', { orderId: x, owner: a, filler: b, id: y, amount: z, price: w, remaining: x });
        expectSameAsViem(orderCancelledEvent, 'pair', { orderId: x, owner: c, remaining: y });
        expectSameAsViem(pairCreatedEvent, 'factory', { pair: a, token0: b, token1: c, premiumToken: a });
      }),
      { numRuns: 50 },
    );
  });

  it('decodes a package settlement with its dynamic directions', () => {
    fc.assert(
      fc.property(bytes32, bytes32, address, address, uint, fc.array(fc.integer({ min: 0, max: 1 }), { minLength: 1, maxLength: 8 }), (h, d, a, b, x, dirs) => {
        expectSameAsViem(packageExecutedEvent, 'mothership', {
          takerAddressHash: h,
          maker: a,
          taker: b,
          offerDigest: d,
          premiumToken: a,
          packagePremium: x,
          makerPaysTaker: dirs.length % 2 === 0,
          nonce: x,
          referrer: b,
          directions: dirs,
        });
      }),
      { numRuns: 20 },
    );
  });

  it('drops logs from an emitter that does not play the event role, and events it does not read', () => {
    const transfer = rpcLog(transferEvent, { caller: EMITTER, sender: EMITTER, receiver: EMITTER, id: 1n, amount: 1n });
    expect(decodeLog(transfer, role('mothership'))).toBeNull();
    expect(decodeLog(transfer, () => null)).toBeNull();
    expect(decodeLog({ ...transfer, topics: [`0x${'00'.repeat(32)}`] }, role('pair'))).toBeNull();
    expect(EVENT_SELECTORS).toHaveLength(6);
  });

  it('refuses a malformed log instead of reading garbage', () => {
    const transfer = rpcLog(transferEvent, { caller: EMITTER, sender: EMITTER, receiver: EMITTER, id: 1n, amount: 1n });
    expect(() => decodeLog({ ...transfer, data: '0x' }, role('pair'))).toThrow(/malformed Transfer/);
    const placed = rpcLog(orderPlacedEvent, { orderId: 1n, owner: EMITTER, id: 1n, isBuy: true, price: 1n, amount: 1n });
    const badBool = `0x${'00'.repeat(31)}02${placed.data.slice(66)}` as Hex;
    expect(() => decodeLog({ ...placed, data: badBool }, role('pair'))).toThrow(/malformed bool/);
  });
});
