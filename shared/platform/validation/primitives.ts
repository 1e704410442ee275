import { getAddress, isAddress } from 'viem';
import { z } from 'zod';

/** An EVM address in any case; parsed to its checksummed form. */
export const addressSchema = z
  .string({ message: 'must be an address string' })
  .refine((v) => isAddress(v, { strict: false }), 'must be a 0x-prefixed 20-byte hex address')
  .transform((v) => getAddress(v));
