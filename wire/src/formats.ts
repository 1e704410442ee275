import { z } from 'zod';

/**
 * How values look on the wire in answers and socket payloads (docs/API.md): addresses checksummed, hashes lower-case
 * hex, big integers as decimal strings, times as ISO 8601 UTC. Response schemas are built from
 * these so the OpenAPI document shows each format once, the same way everywhere.
 */

export const wireAddress = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/)
  .meta({ description: 'EVM address, checksummed (EIP-55).', examples: ['0x70997970C51812dc3A010C7d01b50e0d17dc79C8'] });

export const wireBytes32 = z
  .string()
  .regex(/^0x[0-9a-f]{64}$/)
  .meta({ description: '32 bytes, lower-case hex.' });

export const wireHex = z
  .string()
  .regex(/^0x([0-9a-fA-F]{2})*$/)
  .meta({ description: 'Hex bytes.' });

export const wireDecimal = z
  .string()
  .regex(/^(0|[1-9][0-9]*)$/)
  .meta({ description: 'Unsigned integer as a decimal string (JSON numbers lose precision past 2^53).' });

export const wireTime = z.iso.datetime().meta({ description: 'ISO 8601 UTC timestamp.' });

export const wireUuid = z.uuid();

export const wireChainId = z.number().int().min(1).max(2_147_483_647);

/** Unix seconds (uint40 on chain). */
export const wireUnixSeconds = z
  .number()
  .int()
  .min(0)
  .max(2 ** 40 - 1);

export const wireBlock = z.number().int().min(0);
