import { decodeEventLog, getAddress, toEventSelector, type AbiEvent } from 'viem';
import {
  orderCancelledEvent,
  orderFilledEvent,
  orderPlacedEvent,
  packageExecutedEvent,
  pairCreatedEvent,
  transferEvent,
} from '../../shared/chain/abis';
import type { Hex, RpcLog } from '../rpc/rpc';

/** Where a log sits on the chain; every derived row carries it. */
export interface LogMeta {
  /** Checksummed emitter. */
  address: Hex;
  blockNumber: number;
  blockHash: Hex;
  logIndex: number;
  txHash: Hex;
}

export type DecodedLog =
  | { kind: 'PairCreated'; meta: LogMeta; pair: Hex; token0: Hex; token1: Hex; premiumToken: Hex }
  | { kind: 'Transfer'; meta: LogMeta; caller: Hex; sender: Hex; receiver: Hex; id: bigint; amount: bigint }
  | { kind: 'OrderPlaced'; meta: LogMeta; orderId: bigint; owner: Hex; id: bigint; isBuy: boolean; price: bigint; amount: bigint }
  | {
      kind: 'OrderFilled';
      meta: LogMeta;
      orderId: bigint;
      owner: Hex;
      filler: Hex;
      id: bigint;
      amount: bigint;
      price: bigint;
      remaining: bigint;
    }
  | { kind: 'OrderCancelled'; meta: LogMeta; orderId: bigint; owner: Hex; remaining: bigint }
  | {
      kind: 'PackageExecuted';
      meta: LogMeta;
      takerAddressHash: Hex;
      maker: Hex;
      taker: Hex;
      offerDigest: Hex;
      premiumToken: Hex;
      packagePremium: bigint;
      makerPaysTaker: boolean;
      nonce: bigint;
      referrer: Hex;
      directions: number[];
    };

export type EventKind = DecodedLog['kind'];

/** Which contract may emit what: a log from any other emitter is not ours and is dropped. */
export type EmitterRole = 'factory' | 'mothership' | 'pair';

const EVENTS: Record<EventKind, { abi: AbiEvent; role: EmitterRole }> = {
  PairCreated: { abi: pairCreatedEvent, role: 'factory' },
  Transfer: { abi: transferEvent, role: 'pair' },
  OrderPlaced: { abi: orderPlacedEvent, role: 'pair' },
  OrderFilled: { abi: orderFilledEvent, role: 'pair' },
  OrderCancelled: { abi: orderCancelledEvent, role: 'pair' },
  PackageExecuted: { abi: packageExecutedEvent, role: 'mothership' },
};

const BY_SELECTOR = new Map<string, { kind: EventKind; abi: AbiEvent; role: EmitterRole }>(
  (Object.entries(EVENTS) as [EventKind, (typeof EVENTS)[EventKind]][]).map(([kind, e]) => [toEventSelector(e.abi), { kind, ...e }]),
);

/** topic0 of every event the indexer reads: the `eth_getLogs` topic filter. */
export const EVENT_SELECTORS: Hex[] = [...BY_SELECTOR.keys()] as Hex[];

export const PAIR_CREATED_SELECTOR = toEventSelector(pairCreatedEvent);

const CHECKSUMMED = new Map<string, Hex>();
const MAX_CACHED = 100_000;

/**
 * EIP-55 checksumming costs a keccak per call and the same few addresses (pairs, active
 * wallets) recur in every log, so results are memoised (bounded: cleared when full).
 */
function checksum(lower: string): Hex {
  let c = CHECKSUMMED.get(lower);
  if (c === undefined) {
    if (CHECKSUMMED.size >= MAX_CACHED) CHECKSUMMED.clear();
    c = getAddress(lower);
    CHECKSUMMED.set(lower, c);
  }
  return c;
}

const word = (data: string, i: number) => data.slice(2 + i * 64, 2 + (i + 1) * 64);
const topicAddress = (t: string) => checksum(`0x${t.slice(26).toLowerCase()}`);
const wordAddress = (w: string) => checksum(`0x${w.slice(24).toLowerCase()}`);
const uint = (hex: string) => BigInt(hex.length > 2 && hex.startsWith('0x') ? hex : `0x${hex}`);
const bool = (w: string) => {
  if (!/^0{63}[01]$/.test(w)) throw new Error('malformed bool');
  return w.endsWith('1');
};

function expectShape(log: RpcLog, topics: number, words: number, kind: string): void {
  if (log.topics.length !== topics || log.data.length !== 2 + words * 64) throw new Error(`malformed ${kind} log`);
}

/**
 * Events with a fixed layout (all but PackageExecuted, whose `uint8[]` is dynamic) are decoded
 * by hand: they are nearly all of the traffic, and a generic ABI decoder costs several times more
 * per log. The layouts mirror shared/chain/abis.ts; unit tests decode real logs both ways.
 */
function decodeFixed(kind: Exclude<EventKind, 'PackageExecuted'>, log: RpcLog, meta: LogMeta): DecodedLog {
  const t = log.topics;
  const d = log.data;
  switch (kind) {
    case 'Transfer':
      expectShape(log, 4, 2, kind);
      return { kind, meta, caller: wordAddress(word(d, 0)), sender: topicAddress(t[1]), receiver: topicAddress(t[2]), id: uint(t[3]), amount: uint(word(d, 1)) };
    case 'PairCreated':
      expectShape(log, 2, 3, kind);
      return { kind, meta, pair: topicAddress(t[1]), token0: wordAddress(word(d, 0)), token1: wordAddress(word(d, 1)), premiumToken: wordAddress(word(d, 2)) };
    case 'OrderPlaced':
      expectShape(log, 4, 3, kind);
      return { kind, meta, orderId: uint(t[1]), owner: topicAddress(t[2]), id: uint(t[3]), isBuy: bool(word(d, 0)), price: uint(word(d, 1)), amount: uint(word(d, 2)) };
    case 'OrderFilled':
      expectShape(log, 4, 4, kind);
      return {
        kind,
        meta,
        orderId: uint(t[1]),
        owner: topicAddress(t[2]),
        filler: topicAddress(t[3]),
        id: uint(word(d, 0)),
        amount: uint(word(d, 1)),
        price: uint(word(d, 2)),
        remaining: uint(word(d, 3)),
      };
    case 'OrderCancelled':
      expectShape(log, 3, 1, kind);
      return { kind, meta, orderId: uint(t[1]), owner: topicAddress(t[2]), remaining: uint(word(d, 0)) };
  }
}

export function logMeta(log: RpcLog): LogMeta {
  return {
    address: checksum(log.address.toLowerCase()),
    blockNumber: Number(log.blockNumber),
    blockHash: log.blockHash.toLowerCase() as Hex,
    logIndex: Number(log.logIndex),
    txHash: log.transactionHash.toLowerCase() as Hex,
  };
}

/**
 * Decodes one log, or returns null when it is not an event we read or its emitter does not
 * play the role that event belongs to (`roleOf` says which role an address plays).
 */
export function decodeLog(log: RpcLog, roleOf: (address: string) => EmitterRole | null): DecodedLog | null {
  const spec = BY_SELECTOR.get(log.topics[0]?.toLowerCase() ?? '');
  if (!spec || roleOf(log.address.toLowerCase()) !== spec.role) return null;
  const meta = logMeta(log);
  if (spec.kind !== 'PackageExecuted') return decodeFixed(spec.kind, log, meta);
  const { args } = decodeEventLog({ abi: [spec.abi], topics: log.topics as [Hex, ...Hex[]], data: log.data, strict: true }) as {
    args: Record<string, unknown>;
  };
  const a = (k: string) => checksum((args[k] as string).toLowerCase());
  return {
    kind: 'PackageExecuted',
    meta,
    takerAddressHash: (args.takerAddressHash as string).toLowerCase() as Hex,
    maker: a('maker'),
    taker: a('taker'),
    offerDigest: (args.offerDigest as string).toLowerCase() as Hex,
    premiumToken: a('premiumToken'),
    packagePremium: args.packagePremium as bigint,
    makerPaysTaker: args.makerPaysTaker as boolean,
    nonce: args.nonce as bigint,
    referrer: a('referrer'),
    directions: (args.directions as readonly number[]).map(Number),
  };
}
