import { hexToBytes, keccak256 } from 'viem';
import type { Hex } from './rpc';

/**
 * A block header's `logsBloom`: 2048 bits, three set per address and per topic of every log in
 * the block (the yellow paper's M3:2048). A bit that is clear proves an item absent; all three
 * set mean "may be present". The indexer uses it to prove an `eth_getLogs` answer complete: a
 * block whose bloom says a watched contract may have logged a watched event, while the answer
 * holds nothing of it there, is checked again before anything is written.
 */

/** The three bit positions (0..2047) an item sets: the low 11 bits of the first three byte pairs of its keccak. */
export type BloomBits = readonly [number, number, number];

export function bloomBits(item: Hex): BloomBits {
  const h = hexToBytes(keccak256(item));
  const bit = (i: number) => ((h[i] << 8) | h[i + 1]) & 0x7ff;
  return [bit(0), bit(2), bit(4)];
}

/** A parsed bloom; bits are numbered from the low end of the big-endian 256-byte string. */
export class Bloom {
  private constructor(private readonly bytes: Uint8Array) {}

  /** Null for anything but a 256-byte hex string (a node that omits the field gets no bloom check, only the by-hash one). */
  static parse(hex: string | null | undefined): Bloom | null {
    if (typeof hex !== 'string' || !/^0x[0-9a-fA-F]{512}$/.test(hex)) return null;
    return new Bloom(hexToBytes(hex as Hex));
  }

  mayContain(bits: BloomBits): boolean {
    return bits.every((b) => (this.bytes[255 - (b >> 3)] & (1 << (b & 7))) !== 0);
  }

  /** True when no bit is set: the block has no log at all. */
  get empty(): boolean {
    return this.bytes.every((b) => b === 0);
  }
}

/** Bits of many items, computed once per item: addresses and topics repeat across every block checked. */
export function createBloomBitsCache(): (item: Hex) => BloomBits {
  const cache = new Map<string, BloomBits>();
  return (item) => {
    const key = item.toLowerCase();
    let bits = cache.get(key);
    if (!bits) {
      bits = bloomBits(key as Hex);
      cache.set(key, bits);
    }
    return bits;
  };
}
