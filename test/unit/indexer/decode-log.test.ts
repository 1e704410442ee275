import fc from 'fast-check';
import { decodeEventLog, getAddress, type AbiEvent, type Hex } from 'viem';
import { orderPlacedEvent, transferEvent } from '../../../shared/chain/abis';
import { decodeLog, EVENT_SELECTORS } from '../../../indexer/decode/decode-log';
import type { EmitterRole } from '../../../indexer/chain-events/indexed-event';
import { INDEXED_EVENTS } from '../../../indexer/chain-events/indexed-events';
import { arbitraryArgs, encodeLog } from './abi-logs';

const EMITTER = '0x1111111111111111111111111111111111111111';
const rpcLog = (event: AbiEvent, args: Record<string, unknown>) => encodeLog(event, args, { address: EMITTER });

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
  expect(Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, norm(v)]))).toEqual(
    Object.fromEntries(Object.entries(viem).map(([k, v]) => [k, norm(v)])),
  );
}

describe('decodeLog', () => {
  // Fixed layouts are decoded by hand and PackageExecuted's dynamic `uint8[]` through viem: each
  // entry of INDEXED_EVENTS, whichever way it decodes, must read random logs as the ABI decoder does.
  it.each(Object.values(INDEXED_EVENTS).map((e) => [e.abi.name, e] as const))('decodes %s exactly as the ABI decoder does', (_name, entry) => {
    fc.assert(
      fc.property(arbitraryArgs(entry.abi), (args) => expectSameAsViem(entry.abi, entry.emitter, args)),
      { numRuns: 50 },
    );
  });

  it('drops logs from an emitter that does not play the event role, and events it does not read', () => {
    const transfer = rpcLog(transferEvent, { caller: EMITTER, sender: EMITTER, receiver: EMITTER, id: 1n, amount: 1n });
    expect(decodeLog(transfer, role('mothership'))).toBeNull();
    expect(decodeLog(transfer, () => null)).toBeNull();
    expect(decodeLog({ ...transfer, topics: [`0x${'00'.repeat(32)}`] }, role('pair'))).toBeNull();
    expect(EVENT_SELECTORS).toHaveLength(Object.keys(INDEXED_EVENTS).length);
  });

  it('refuses a malformed log instead of reading garbage', () => {
    const transfer = rpcLog(transferEvent, { caller: EMITTER, sender: EMITTER, receiver: EMITTER, id: 1n, amount: 1n });
    expect(() => decodeLog({ ...transfer, data: '0x' }, role('pair'))).toThrow(/malformed Transfer/);
    const placed = rpcLog(orderPlacedEvent, { orderId: 1n, owner: EMITTER, id: 1n, isBuy: true, price: 1n, amount: 1n });
    const badBool = `0x${'00'.repeat(31)}02${placed.data.slice(66)}` as Hex;
    expect(() => decodeLog({ ...placed, data: badBool }, role('pair'))).toThrow(/malformed bool/);
  });
});
