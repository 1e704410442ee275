import { keccak_256 } from '@noble/hashes/sha3';
import { checkDirections, type Direction } from '../../wire/src/protocol';
import { optionalBinding } from './native-binding';

/**
 * keccak-256 through the `keccak` package's prebuilt binding (the reference C implementation)
 * when it loads, else @noble/hashes (what viem hashes with). On the quote path's 256-byte input
 * the binding takes about 3 µs against 13.5 µs (docs/PERFORMANCE.md, "Where a quote create's API
 * CPU goes"). Same digest either way (test/unit/protocol/keccak.test.ts).
 */
interface KeccakHasher {
  update(data: Buffer): KeccakHasher;
  digest(): Buffer;
}
type KeccakFactory = (algorithm: 'keccak256') => KeccakHasher;

const binding = optionalBinding<KeccakFactory>('keccak/bindings');

/** Which implementation hashes in this process: a role logs it at start. */
export const keccakBackend: 'native' | 'javascript' = binding ? 'native' : 'javascript';

/** keccak-256 of `data`. */
export function keccak256Bytes(data: Uint8Array): Uint8Array {
  if (!binding) return keccak_256(data);
  return binding('keccak256')
    .update(Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength))
    .digest();
}

/** @noble/hashes' keccak-256, always: the reference the native path is tested against. */
export function keccak256BytesJs(data: Uint8Array): Uint8Array {
  return keccak_256(data);
}

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const BYTES32 = /^0x[0-9a-fA-F]{64}$/;

/**
 * The taker address hash a quote stores and offers bind (wire/src/protocol/taker-hash.ts
 * defines it: keccak256(abi.encode(address taker, bytes32 salt, uint8[] directions, address
 * referrer))), with the ABI words written directly: the layout of these four parameters is
 * fixed (taker, salt, the array's offset 0x80, referrer, then its length and one word per
 * direction). The quote create computes one per request; viem's generic encoder and JavaScript
 * keccak made it 37 µs of the API's CPU. Equal to the wire function on every input
 * (test/unit/protocol/keccak.test.ts); refuses what it refuses.
 */
export function takerAddressHashFast(taker: string, salt: string, directions: readonly Direction[], referrer: string): `0x${string}` {
  if (!ADDRESS.test(taker)) throw new Error(`taker ${taker} is not an address`);
  if (!ADDRESS.test(referrer)) throw new Error(`referrer ${referrer} is not an address`);
  if (!BYTES32.test(salt)) throw new Error('salt is not 32 bytes of hex');
  checkDirections(directions);
  const words = Buffer.alloc(32 * (5 + directions.length));
  words.write(taker.slice(2), 12, 'hex');
  words.write(salt.slice(2), 32, 'hex');
  words[95] = 0x80;
  words.write(referrer.slice(2), 108, 'hex');
  words.writeUInt32BE(directions.length, 156);
  for (let i = 0; i < directions.length; i++) words[191 + 32 * i] = directions[i];
  return `0x${Buffer.from(keccak256Bytes(words)).toString('hex')}`;
}
