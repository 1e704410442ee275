import { encodeAbiParameters, getAddress, keccak256, zeroAddress, type Address, type Hex } from 'viem';
import type { Direction } from './constants';

const TAKER_HASH_PARAMS = [
  { name: 'taker', type: 'address' },
  { name: 'salt', type: 'bytes32' },
  { name: 'directions', type: 'uint8[]' },
  { name: 'referrer', type: 'address' },
] as const;

const DIRECTIONS_PARAMS = [{ name: 'directions', type: 'uint8[]' }] as const;

/** Every direction is 0 (Buy) or 1 (Sell); a RangeError names the first that is not. */
export function checkDirections(directions: readonly number[]): void {
  directions.forEach((d, i) => {
    if (d !== 0 && d !== 1) throw new RangeError(`directions[${i}] is ${d}; a direction is 0 (Buy) or 1 (Sell)`);
  });
}

/** keccak256(abi.encode(address taker, bytes32 salt, uint8[] directions, address referrer)), lower-case hex. */
export function takerAddressHash(taker: Address, salt: Hex, directions: readonly Direction[], referrer: Address = zeroAddress): Hex {
  checkDirections(directions);
  return keccak256(encodeAbiParameters(TAKER_HASH_PARAMS, [getAddress(taker), salt, [...directions], getAddress(referrer)]));
}

/** keccak256(abi.encode(uint8[] directions)): the Dutch `maker_address_hash` of the API-brokered path. */
export function directionsHash(directions: readonly Direction[]): Hex {
  checkDirections(directions);
  return keccak256(encodeAbiParameters(DIRECTIONS_PARAMS, [[...directions]]));
}
