import { getAddress, isAddress } from 'viem';
import { z } from 'zod';

const UINT256_MAX = (1n << 256n) - 1n;

/** An EVM address in any case; parsed to its checksummed form. */
export const addressSchema = z
  .string({ message: 'must be an address string' })
  .refine((v) => isAddress(v, { strict: false }), 'must be a 0x-prefixed 20-byte hex address')
  .transform((v) => getAddress(v));

/** A non-negative integer as a decimal string, at most `max`. */
export const uintString = (max: bigint = UINT256_MAX, what = 'uint256') =>
  z
    .string({ message: 'must be a decimal integer string' })
    .regex(/^(0|[1-9][0-9]*)$/, 'must be a decimal integer string without sign, spaces or leading zeros')
    .refine((v) => v.length <= 80 && BigInt(v) <= max, `must fit ${what}`);

/** A strictly positive integer as a decimal string, at most `max`. */
export const positiveUintString = (max: bigint = UINT256_MAX, what = 'uint256') =>
  uintString(max, what).refine((v) => BigInt(v) > 0n, 'must be greater than zero');

/** 0x-prefixed lower-case hex of exactly `bytes` bytes (input in any case). */
export const hexBytes = (bytes: number) =>
  z
    .string({ message: 'must be a hex string' })
    .regex(new RegExp(`^0x[0-9a-fA-F]{${bytes * 2}}$`), `must be 0x followed by ${bytes * 2} hex digits`)
    .transform((v) => v.toLowerCase() as `0x${string}`);

/** A chain id as JSON gives it. */
export const chainIdSchema = z
  .number({ message: 'must be an integer' })
  .int('must be an integer')
  .positive('must be positive')
  .max(2 ** 53 - 1);

export const UINT256_MAX_VALUE = UINT256_MAX;
