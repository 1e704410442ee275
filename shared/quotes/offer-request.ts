import type { Hex } from 'viem';
import { z } from 'zod';
import { canonicalSignatureSchema, intentListSchema, intentToLeg, type PackageOffer } from '../protocol';
import {
  booleanField,
  bytes32,
  decimalUint,
  evmAddress,
  parsedAt,
  parseOrThrow,
  rebuiltWhenChanged,
  required,
  ruleIssue,
  unixSeconds,
  unknownKeys,
  whenObject,
} from '../platform/validation';

/** A maker's package offer as posted to `POST /api/quote/:id`, parsed. */
export interface OfferRequest {
  offer: PackageOffer;
  signature: Hex;
}

/**
 * The offer body at `now`. `legs` are the quote's intents as the maker signed them (same shape
 * as the create's `intents`).
 */
function offerRequestSchema(now: number) {
  const shape = {
    offer_type: required(z.literal('package', { message: 'must be "package" (per-leg offers are not accepted)' })).meta({
      description: 'Always "package": one premium for the whole package (per-leg offers are not accepted).',
    }),
    package_premium: required(decimalUint()).meta({ description: 'Premium of the whole package, in premium-token units (uint256 decimal string).' }),
    maker_pays_taker: booleanField
      .optional()
      .transform((v) => v ?? false)
      .meta({ description: 'Default false: the taker pays the premium.' }),
    taker_address_hash: required(bytes32).meta({ description: "The quote's taker_address_hash, copied exactly." }),
    premium_token: required(evmAddress).meta({ description: "A token registered on the quote's chain." }),
    legs: required(intentListSchema(now, 'legs')).meta({ description: "The quote's legs, as signed (the same shape as the create's `intents`)." }),
    maker: required(evmAddress).meta({ description: "The authenticated maker wallet (SIWE address or the API key's bot wallet)." }),
    nonce: required(decimalUint()).meta({ description: 'Unused for (chain, maker) (uint256 decimal string).' }),
    deadline: required(unixSeconds).meta({ description: 'Unix seconds, in the future and not after the quote expires.' }),
    signature: required(canonicalSignatureSchema).meta({
      description: 'EIP-712 PackageOffer signature by `maker`, 65 bytes hex, low s (s <= n/2) and v 27 or 28, as the mothership requires (docs/PROTOCOL.md).',
    }),
  };
  const known = new Set(Object.keys(shape));
  return z
    .looseObject(shape, { message: 'must be a JSON object' })
    .superRefine((b, ctx) => {
      unknownKeys(ctx, b, known, 'is not a field of a package offer');
      if (parsedAt(ctx, ['deadline']) && b.deadline <= now) ruleIssue(ctx, ['deadline'], `must be in the future (now is ${now})`);
    }, whenObject)
    .meta({
      additionalProperties: false,
      description: 'An EIP-712-signed package offer bound to the quote through taker_address_hash; unknown fields are refused.',
    });
}

/** The offer body as the API documents it: the parser itself, read at no particular time. */
export const offerRequestDocument = offerRequestSchema(0);

const schemaAt = rebuiltWhenChanged(offerRequestSchema);

/** Parses the offer body, every bad field reported at once. */
export function parseOfferRequest(body: unknown, nowSeconds: number): OfferRequest {
  const b = parseOrThrow(schemaAt(nowSeconds), body);
  return {
    offer: {
      takerAddressHash: b.taker_address_hash,
      legs: b.legs.map(intentToLeg),
      packagePremium: b.package_premium,
      makerPaysTaker: b.maker_pays_taker,
      premiumToken: b.premium_token,
      maker: b.maker,
      nonce: b.nonce,
      deadline: b.deadline,
    },
    signature: b.signature as Hex,
  };
}
