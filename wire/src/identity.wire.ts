import { z } from 'zod';
import { wireAddress, wireChainId, wireTime } from './formats';
import { addressSchema } from './validation';

/** A hex signature: 65 bytes for a wallet key, longer for contract wallets (ERC-1271 / ERC-6492). */
export const signatureSchema = z
  .string({ message: 'must be a hex string' })
  .regex(/^0x([0-9a-fA-F]{2}){1,8192}$/, 'must be 0x followed by an even number of hex digits')
  .transform((v) => v as `0x${string}`);

/** A UTF-16 string with an unpaired surrogate: no valid Unicode text, and no stable bytes to sign. */
export function hasLoneSurrogate(v: string): boolean {
  return /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(v);
}

/**
 * A display name (keys, organizations): lone surrogates refused, then trimmed and NFC-normalised
 * (so one name has one form, the form statements must repeat), and never blank.
 */
export function nameSchema(max: number) {
  return z
    .string({ message: 'must be a string' })
    .refine((v) => !hasLoneSurrogate(v), 'must be valid Unicode text (no unpaired surrogate)')
    .transform((v) => v.trim().normalize('NFC'))
    .pipe(
      z
        .string()
        .min(1, 'must not be empty or blank')
        .max(max, `must be at most ${max} characters`)
        // eslint-disable-next-line no-control-regex -- matching control characters is the point
        .refine((v) => !/[\u0000-\u001f\u007f]/.test(v), 'must be one line without control characters'),
    );
}

/** A key name: it is repeated on the `Name:` line of signed statements, so one line of text. */
export const keyNameSchema = nameSchema(64);

/** The signed admin statement and its personal_sign signature. */
const signed = {
  message: z.string({ message: 'must be the signed statement text' }).min(1).max(4096),
  signature: signatureSchema,
};

export const loginSchema = z.strictObject({
  message: z.string({ message: 'must be the EIP-4361 message text' }).min(1).max(8192),
  signature: signatureSchema,
});

/**
 * The spec's body (`address`, `name`, `message`, `signature`), plus the optional
 * `address_signature`: the bot wallet's own personal_sign of `message`, which verifies the key at
 * once. Without it the key is created unverified.
 */
export const addMakerKeySchema = z.strictObject({ address: addressSchema, name: keyNameSchema, ...signed, address_signature: signatureSchema.optional() });
/** POST /api/maker/keys/:id/verify: the bot wallet's personal_sign of the key's verification text. */
export const verifyMakerKeySchema = z.strictObject({ signature: signatureSchema });
export const signedOnlySchema = z.strictObject(signed);
/** `new_admin_signature`: the new admin's own personal_sign of `message`, proving it accepts the role. */
export const transferAdminSchema = z.strictObject({ new_admin: addressSchema, ...signed, new_admin_signature: signatureSchema });
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
    withKey: z.strictObject(base),
    asAdmin: z.strictObject({ ...base, ...signed }),
  };
}

/** A key id from the path: anything but a uuid is simply not found. */
export const keyIdSchema = z.uuid();

/** A member's role in a maker or taker organization. */
export const ROLES = ['admin', 'owner', 'manager', 'member'] as const;

/** GET /api/login/nonce. */
export const loginNonceAnswer = z.strictObject({
  nonce: z.string(),
  domain: z.string(),
  uri: z.string(),
  chain_id: wireChainId,
  statement: z.string(),
  version: z.string(),
  issued_at: wireTime,
  expiration_time: wireTime,
});

/** POST /api/login. */
export const loginAnswer = z.strictObject({ token: z.string(), address: wireAddress, expires_in: z.number().int().min(1) });

const organization = { organization_id: z.string(), organization_name: z.string() };

/** A maker's Dutch fades: winners that let the exclusive window pass without filling (docs/DUTCH.md, "Fades"). */
const dutchFades = z
  .strictObject({
    count: z.number().int().min(0).meta({ description: "Fades of the maker's organization within the last window_seconds." }),
    window_seconds: z.number().int().meta({ description: 'DUTCH_FADE_WINDOW.' }),
    limit: z.number().int().meta({ description: 'DUTCH_FADE_LIMIT: this many fades within the window block Dutch bids for DUTCH_FADE_COOLDOWN seconds.' }),
    blocked_until: wireTime.nullable().meta({ description: 'Until when Dutch bids are refused (403 maker_faded); null when they are not.' }),
  })
  .meta({ description: 'Makers only.' });

/** GET /api/me: what each credential is told about itself. */
export const sessionView = z.union([
  z.strictObject({ credential: z.literal('siwe'), address: wireAddress, tier: z.literal('freemium') }),
  z.strictObject({
    credential: z.literal('siwe'),
    address: wireAddress,
    tier: z.literal('maker'),
    role: z.enum(ROLES),
    ...organization,
    dutch_fades: dutchFades,
  }),
  z.strictObject({
    credential: z.literal('maker_key'),
    address: wireAddress,
    tier: z.literal('maker'),
    role: z.literal('member'),
    ...organization,
    key_id: z.string(),
    dutch_fades: dutchFades,
  }),
  z.strictObject({ credential: z.literal('delegate'), address: wireAddress, tier: z.literal('freemium'), ...organization, key_id: z.string().nullable() }),
]);

export const keyFields = { id: z.string(), name: z.string(), created_at: wireTime, last_used_at: wireTime.nullable() };

/** A maker key as listed: its bot wallet, never its secret. */
export const makerKeyView = z.strictObject({
  ...keyFields,
  address: wireAddress.optional(),
  verified: z.boolean().meta({
    description:
      'Whether the bot wallet proved it consents (address_signature at creation, POST /api/maker/keys/:id/verify, or its own SIWE sign-in). An unverified key authenticates and posts package offers, but may not bid on Dutch auctions, take exclusive fills or join rfq_maker.',
  }),
});

export const makerKeyList = z.strictObject({ keys: z.array(makerKeyView) });
export const newMakerKey = makerKeyView.extend({ secret: z.string() });
export const removedMakerKey = makerKeyView.extend({ removed_at: wireTime });

/** A taker key as listed: no address (a backend's credential, not a wallet's), never its secret. */
export const takerKeyView = z.strictObject(keyFields);
export const takerKeyList = z.strictObject({ keys: z.array(takerKeyView) });
export const newTakerKey = takerKeyView.extend({ secret: z.string() });
export const removedTakerKey = takerKeyView.extend({ removed_at: wireTime });

/** The ceiling DELEGATE_MAX_TTL_SECONDS may be configured to; the deployment's own limit may be lower. */
const DELEGATE_TTL_CEILING = 7 * 86400;
const delegateBodies = delegateSchemas(DELEGATE_TTL_CEILING);

/** POST /api/taker/delegate: with a taker API key, or as the taker admin with a signed statement. */
export const delegateBody = z.union([delegateBodies.withKey, delegateBodies.asAdmin]);

/** The minted delegate. */
export const delegateAnswer = z.strictObject({ token: z.string(), address: wireAddress, expires_in: z.number().int().min(1), key_id: z.string().optional() });
