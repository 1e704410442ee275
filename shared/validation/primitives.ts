import { getAddress, isAddress } from 'viem';
import { z } from 'zod';
import { UINT256_MAX } from '../protocol/constants';

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

/** A chain id as JSON gives it. */
export const chainIdSchema = z
  .number({ message: 'must be an integer' })
  .int('must be an integer')
  .positive('must be positive')
  .max(2 ** 53 - 1);
