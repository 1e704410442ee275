import type { Hex } from 'viem';
import { SECP256K1_N } from '../../shared/protocol';

/** The malleated twin of a 65-byte signature: s' = n - s and v flipped. It recovers the same signer. */
export function highS(signature: Hex): Hex {
  const r = signature.slice(2, 66);
  const s = BigInt(`0x${signature.slice(66, 130)}`);
  const v = parseInt(signature.slice(130, 132), 16);
  const flipped = v === 27 ? 28 : v === 28 ? 27 : v ^ 1;
  return `0x${r}${(SECP256K1_N - s).toString(16).padStart(64, '0')}${flipped.toString(16).padStart(2, '0')}`;
}

/** The same signature with its last byte (v) replaced. */
export function withV(signature: Hex, v: number): Hex {
  return `${signature.slice(0, 130)}${v.toString(16).padStart(2, '0')}` as Hex;
}
