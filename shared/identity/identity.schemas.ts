import { z } from 'zod';
import { addressSchema } from '../platform/validation';

/** A hex signature: 65 bytes for a wallet key, longer for contract wallets (ERC-1271 / ERC-6492). */
export const signatureSchema = z
  .string({ message: 'must be a hex string' })
  .regex(/^0x([0-9a-fA-F]{2}){1,8192}$/, 'must be 0x followed by an even number of hex digits')
  .transform((v) => v as `0x${string}`);

/** A key name: it is repeated on the `Name:` line of signed statements, so one line of text. */
export const keyNameSchema = z
  .string({ message: 'must be a string' })
  .min(1, 'must not be empty')
  .max(64, 'must be at most 64 characters')
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  .refine((v) => !/[\u0000-\u001f\u007f]/.test(v), 'must be one line without control characters');

/** The signed admin statement and its personal_sign signature. */
const signed = {
  message: z.string({ message: 'must be the signed statement text' }).min(1).max(4096),
  signature: signatureSchema,
};

export const loginSchema = z.strictObject({
  message: z.string({ message: 'must be the EIP-4361 message text' }).min(1).max(8192),
  signature: signatureSchema,
});

/** `address_signature`: the bot wallet's own personal_sign of `message`, proving it consents to the key. */
export const addMakerKeySchema = z.strictObject({ address: addressSchema, name: keyNameSchema, ...signed, address_signature: signatureSchema });
export const signedOnlySchema = z.strictObject(signed);
export const transferAdminSchema = z.strictObject({ new_admin: addressSchema, ...signed });
export const addTakerKeySchema = z.strictObject({ name: keyNameSchema });

/** POST /api/taker/delegate; `maxSeconds` is DELEGATE_MAX_TTL_SECONDS. The statement is needed only without an API key. */
export function delegateSchemas(maxSeconds: number) {
  const base = {
    address: addressSchema,
    expires_in: z
      .number({ message: 'must be an integer number of seconds' })
      .int('must be an integer number of seconds')
      .min(1, 'must be at least 1 second')
      .max(maxSeconds, `must be at most ${maxSeconds} seconds`),
  };
  return {
    withKey: z.object(base),
    asAdmin: z.strictObject({ ...base, ...signed }),
  };
}

/** A key id from the path: anything but a uuid is simply not found. */
export const keyIdSchema = z.uuid();
