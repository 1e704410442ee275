import fc from 'fast-check';
import { encodeAbiParameters, encodeEventTopics, getAddress, keccak256, toHex, type AbiEvent, type AbiParameter, type Hex } from 'viem';
import type { RpcLog } from '../../../indexer/rpc/rpc';

/**
 * Logs of any ABI event, encoded as a node returns them, for tests that run over every entry of
 * the indexed-event table. Argument values come from the ABI's types, so a new event needs
 * nothing here unless it uses a type no event used before (then `valueFor` says so).
 */

/** Where the log sits; defaults are a fixed position. */
export interface LogPlace {
  address: Hex;
  blockNumber?: number;
  blockHash?: Hex;
  logIndex?: number;
  txHash?: Hex;
}

/** A log as a node would return it for `event` with `args`. */
export function encodeLog(event: AbiEvent, args: Record<string, unknown>, at: LogPlace): RpcLog {
  const topics = encodeEventTopics({ abi: [event], eventName: event.name, args } as never) as Hex[];
  const dataInputs = event.inputs.filter((i) => !i.indexed);
  const data = encodeAbiParameters(
    dataInputs,
    dataInputs.map((i) => args[i.name!]),
  );
  return {
    address: at.address,
    topics,
    data,
    blockNumber: toHex(at.blockNumber ?? 16),
    blockHash: at.blockHash ?? `0x${'ab'.repeat(32)}`,
    transactionHash: at.txHash ?? `0x${'cd'.repeat(32)}`,
    logIndex: toHex(at.logIndex ?? 3),
  };
}

const unsupported = (p: AbiParameter): never => {
  throw new Error(`test/unit/indexer/abi-logs.ts has no values for ABI type ${p.type} (${p.name}): add them`);
};

const uintMax = (type: string) => (1n << BigInt(type.slice(4) || '256')) - 1n;

/** Random values of a parameter's type. */
function arbitraryFor(p: AbiParameter): fc.Arbitrary<unknown> {
  if (p.type === 'address') return fc.uint8Array({ minLength: 20, maxLength: 20 }).map((b) => getAddress(toHex(b)));
  if (p.type === 'bytes32') return fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => toHex(b));
  if (p.type === 'bool') return fc.boolean();
  if (p.type === 'uint8[]') return fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 0, maxLength: 8 });
  if (/^uint\d*$/.test(p.type)) {
    const arb = fc.bigInt({ min: 0n, max: uintMax(p.type) });
    return p.type === 'uint8' ? arb.map(Number) : arb;
  }
  return unsupported(p);
}

/** Random arguments of `event`, by name. */
export function arbitraryArgs(event: AbiEvent): fc.Arbitrary<Record<string, unknown>> {
  return fc.record(Object.fromEntries(event.inputs.map((p) => [p.name!, arbitraryFor(p)])));
}

/**
 * Fixed arguments of `event`: each value follows from the parameter's name and type alone, so
 * events that share a name share the value (an order's `orderId` and `owner` are the same in
 * its placement, fill and cancel) while different names get different values.
 */
export function fixedArgs(event: AbiEvent): Record<string, unknown> {
  return Object.fromEntries(event.inputs.map((p) => [p.name!, valueFor(p)]));
}

function valueFor(p: AbiParameter): unknown {
  const h = keccak256(toHex(p.name ?? ''));
  if (p.type === 'address') return getAddress(h.slice(0, 42));
  if (p.type === 'bytes32') return h;
  if (p.type === 'bool') return true;
  if (p.type === 'uint8[]') return [1, 0];
  if (/^uint\d*$/.test(p.type)) {
    const v = 1n + (BigInt(h.slice(0, 10)) % 1000n);
    return p.type === 'uint8' ? Number(v) : v;
  }
  return unsupported(p);
}
