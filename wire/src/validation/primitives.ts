import { getAddress, isAddress, zeroAddress, type Address } from 'viem';
import { z } from 'zod';

/** What every refused address is told. */
export const ADDRESS_MESSAGE = 'must be a 0x-prefixed 20-byte hex address';

const address = (notAString: string) =>
  z
    .string({ message: notAString })
    .refine((v) => isAddress(v, { strict: false }), ADDRESS_MESSAGE)
    .transform((v): Address => getAddress(v))
    .meta({ pattern: '^0x[0-9a-fA-F]{40}$', description: 'EVM address, any case; answers carry it checksummed.' });

/** An EVM address in any case; parsed to its checksummed form. */
export const addressSchema = address('must be an address string');

/** The same, refusing a non-string with the same words as a malformed address (the protocol's bodies). */
export const evmAddress = address(ADDRESS_MESSAGE);

/** An optional address: absent (or null) is the zero address, as on chain (referrer, required authority). */
export const addressOrZero = evmAddress
  .nullish()
  .transform((v): Address => v ?? zeroAddress)
  .meta({ description: 'EVM address, any case; absent or null is the zero address.' });
