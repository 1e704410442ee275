import { randomBytes } from 'node:crypto';
import { keccak256, zeroAddress, type Address, type Hex } from 'viem';
import { keccak256Bytes, keccakBackend, takerAddressHashFast } from '../../../shared/protocol';
import { keccak256BytesJs } from '../../../shared/protocol/keccak';
import { takerAddressHash, type Direction } from '../../../wire/src/protocol';

const hex = (n: number): Hex => `0x${randomBytes(n).toString('hex')}`;
/** An address in any case: lower, upper or mixed, as a request may carry it. */
function address(i: number): Address {
  const body = randomBytes(20).toString('hex');
  const cased = i % 3 === 0 ? body : i % 3 === 1 ? body.toUpperCase() : [...body].map((c, j) => (j % 2 ? c.toUpperCase() : c)).join('');
  return `0x${cased}`;
}

describe('keccak-256: the native binding against noble and viem', () => {
  it('loads the binding here (a production install ships its prebuilt)', () => {
    expect(keccakBackend).toBe('native');
  });

  it('hashes every length around the rate (136 bytes) and far past it the same', () => {
    for (const n of [0, 1, 31, 32, 33, 64, 135, 136, 137, 200, 271, 272, 273, 1000, 4096]) {
      const data = randomBytes(n);
      const expected = keccak256(data);
      expect(`0x${Buffer.from(keccak256Bytes(data)).toString('hex')}`).toBe(expected);
      expect(`0x${Buffer.from(keccak256BytesJs(data)).toString('hex')}`).toBe(expected);
      // a view into a larger buffer hashes only its own bytes
      const wide = Buffer.concat([randomBytes(7), data, randomBytes(5)]);
      expect(`0x${Buffer.from(keccak256Bytes(new Uint8Array(wide.buffer, wide.byteOffset + 7, n))).toString('hex')}`).toBe(expected);
    }
  });
});

describe('takerAddressHashFast against the wire definition', () => {
  it('equals it for 500 random quotes of 1 to 6 legs, with and without a referrer, in any address case', () => {
    for (let i = 0; i < 500; i++) {
      const directions = Array.from({ length: 1 + (i % 6) }, () => (randomBytes(1)[0] & 1) as Direction);
      const taker = address(i);
      const referrer = i % 4 === 0 ? zeroAddress : address(i + 1);
      const salt = hex(32);
      expect(takerAddressHashFast(taker, salt, directions, referrer)).toBe(takerAddressHash(taker, salt, directions, referrer));
    }
  });

  it('equals it for no legs and for the largest salt and addresses', () => {
    const max = `0x${'f'.repeat(40)}` as Address;
    const salt = `0x${'f'.repeat(64)}` as Hex;
    expect(takerAddressHashFast(max, salt, [], max)).toBe(takerAddressHash(max, salt, [], max));
    expect(takerAddressHashFast(zeroAddress, `0x${'0'.repeat(64)}`, [1, 0, 1], zeroAddress)).toBe(
      takerAddressHash(zeroAddress, `0x${'0'.repeat(64)}`, [1, 0, 1], zeroAddress),
    );
  });

  it('refuses a direction the wire function refuses, with the same error, and malformed addresses or salts', () => {
    const salt = hex(32);
    const taker = address(0);
    expect(() => takerAddressHashFast(taker, salt, [0, 2 as Direction], zeroAddress)).toThrow('directions[1] is 2; a direction is 0 (Buy) or 1 (Sell)');
    expect(() => takerAddressHash(taker, salt, [0, 2 as Direction], zeroAddress)).toThrow('directions[1] is 2; a direction is 0 (Buy) or 1 (Sell)');
    expect(() => takerAddressHashFast('0x1234', salt, [0], zeroAddress)).toThrow('taker 0x1234 is not an address');
    expect(() => takerAddressHashFast(taker, salt, [0], `0x${'g'.repeat(40)}`)).toThrow('is not an address');
    expect(() => takerAddressHashFast(taker, '0x00', [0], zeroAddress)).toThrow('salt is not 32 bytes of hex');
  });
});
