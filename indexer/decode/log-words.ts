import { getAddress } from 'viem';
import type { Hex, RpcLog } from '../rpc/rpc';

/**
 * Reading ABI-encoded logs by hand. Events with a fixed layout are nearly all of the traffic,
 * and a generic ABI decoder costs several times more per log; each INDEXED_EVENTS entry's decoder
 * mirrors its ABI item with these, and a unit test decodes random logs both ways.
 */

const CHECKSUMMED = new Map<string, Hex>();
const MAX_CACHED = 100_000;

/**
 * EIP-55 checksumming costs a keccak per call and the same few addresses (pairs, active
 * wallets) recur in every log, so results are memoised (bounded: cleared when full).
 */
export function checksum(lower: string): Hex {
  let c = CHECKSUMMED.get(lower);
  if (c === undefined) {
    if (CHECKSUMMED.size >= MAX_CACHED) CHECKSUMMED.clear();
    c = getAddress(lower);
    CHECKSUMMED.set(lower, c);
  }
  return c;
}

/** The `i`-th 32-byte word of `data`, as 64 hex digits. */
export const word = (data: string, i: number) => data.slice(2 + i * 64, 2 + (i + 1) * 64);
export const topicAddress = (t: string) => checksum(`0x${t.slice(26).toLowerCase()}`);
export const wordAddress = (w: string) => checksum(`0x${w.slice(24).toLowerCase()}`);
export const uint = (hex: string) => BigInt(hex.length > 2 && hex.startsWith('0x') ? hex : `0x${hex}`);
export const bool = (w: string) => {
  if (!/^0{63}[01]$/.test(w)) throw new Error('malformed bool');
  return w.endsWith('1');
};

/** Refuses a log whose topic count or data length is not the event's: garbage is never read as values. */
export function expectShape(log: RpcLog, topics: number, words: number, kind: string): void {
  if (log.topics.length !== topics || log.data.length !== 2 + words * 64) throw new Error(`malformed ${kind} log`);
}
