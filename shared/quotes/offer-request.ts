import type { Hex } from 'viem';
import { z } from 'zod';
import { intentListSchema, intentToLeg, type PackageOffer } from '../protocol';
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

const SIGNATURE_MESSAGE = 'must be a 65-byte (or 64-byte compact) hex signature';

/**
 * The offer body at `now`. `legs` are the quote's intents as the maker signed them (same shape
 * as the create's `intents`).
 */
function offerRequestSchema(now: number) {
  const shape = {
    offer_type: required(z.literal('package', { message: 'must be "package" (per-leg offers are not accepted)' })),
    package_premium: required(decimalUint()),
    maker_pays_taker: booleanField.optional().transform((v) => v ?? false),
    taker_address_hash: required(bytes32),
    premium_token: required(evmAddress),
    legs: required(intentListSchema(now, 'legs')),
    maker: required(evmAddress),
    nonce: required(decimalUint()),
    deadline: required(unixSeconds),
    signature: required(z.string({ message: SIGNATURE_MESSAGE }).regex(/^0x([0-9a-fA-F]{130}|[0-9a-fA-F]{128})$/, SIGNATURE_MESSAGE)),
  };
  const known = new Set(Object.keys(shape));
  return z.looseObject(shape, { message: 'must be a JSON object' }).superRefine((b, ctx) => {
    unknownKeys(ctx, b, known, 'is not a field of a package offer');
    if (parsedAt(ctx, ['deadline']) && b.deadline <= now) ruleIssue(ctx, ['deadline'], `must be in the future (now is ${now})`);
  }, whenObject);
}

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
