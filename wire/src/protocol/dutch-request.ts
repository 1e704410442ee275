import { z } from 'zod';
import {
  addressOrZero,
  booleanField,
  bytes32,
  decimalUint,
  evmAddress,
  parsedAt,
  parseOrThrow,
  rebuiltWhenChanged,
  ruleIssue,
  sizedArray,
  unixSeconds,
  whenObject,
} from '../validation';
import { MAX_LEGS } from './constants';
import { intentListSchema, intentToJson, intentToLeg, legToIntent, type IntentJson } from './intents';
import type { DutchFillRequest, TokenTriple } from './typed-data';

/** `dutch_request` as the API accepts and returns it: snake_case, big integers as strings. */
export interface DutchRequestJson {
  intents: IntentJson[];
  tokens: { token0: string; token1: string; premium_token: string }[];
  dutch_premium: {
    token: string;
    maker_pays_taker: boolean;
    start_premium: string;
    end_premium: string;
    decay_rate: string;
    auction_start: number;
  };
  auction_end: number;
  maker_address_hash: string;
  taker_nonce: string;
  required_authority: string;
  required_dutch_authority: string;
  referrer: string;
}

const tokenTriple = z
  .object(
    {
      token0: evmAddress.meta({ description: "The pair's token0 (underlying)." }),
      token1: evmAddress.meta({ description: "The pair's token1 (quote token)." }),
      premium_token: evmAddress.meta({ description: "The pair's premium token." }),
    },
    { message: 'must be an object with token0, token1 and premium_token' },
  )
  .meta({ description: 'One token triple (EIP-712 TokenTriple).' })
  .transform((t): TokenTriple => ({ token0: t.token0, token1: t.token1, premiumToken: t.premium_token }));

const dutchPremium = z
  .object(
    {
      token: evmAddress.meta({ description: 'The premium token.' }),
      maker_pays_taker: booleanField.meta({ description: 'True: the maker pays the taker the premium (the taker sells); false: the taker pays.' }),
      start_premium: decimalUint().meta({ description: "Premium at auction_start, in premium-token units: the taker's best price." }),
      end_premium: decimalUint().meta({ description: 'Premium the curve moves to, toward the maker\'s best price (docs/DUTCH.md, "Curve").' }),
      decay_rate: decimalUint().meta({ description: 'How fast the premium moves from start to end (docs/DUTCH.md, "Curve"); uint256 decimal string.' }),
      auction_start: unixSeconds.meta({ description: 'Unix seconds at which the curve starts.' }),
    },
    { message: 'must be an object' },
  )
  .meta({ description: 'The premium curve (EIP-712 DutchPremium).' });

/**
 * The `dutch_request` at `path` of its document, read against `now`: the auction must end after
 * it starts, in the future, and by the legs' expiry.
 */
function dutchRequestSchema(now: number, path: string) {
  return z
    .object(
      {
        intents: intentListSchema(now, `${path}.intents`).meta({ description: "The legs, as signed; the quote's legs." }),
        tokens: sizedArray(tokenTriple, 1, MAX_LEGS).meta({ description: "Token triples of the legs' pairs." }),
        dutch_premium: dutchPremium,
        auction_end: unixSeconds.meta({
          description: "Unix seconds: after auction_start, in the future, not after the legs' expiry, within dutch_limits.max_auction_seconds.",
        }),
        maker_address_hash: bytes32.meta({ description: 'directionsHash(directions) = keccak256(abi.encode(uint8[])) (docs/PROTOCOL.md).' }),
        taker_nonce: decimalUint().meta({ description: 'Unused by this taker (uint256 decimal string); the fill spends it.' }),
        required_authority: addressOrZero.meta({
          description:
            'Fill authority (KYC): the zero address (absent or null is) for none, else an IFillAuthority contract on this chain; only fillers it allows may bid and fill (docs/DUTCH.md).',
        }),
        required_dutch_authority: evmAddress.meta({ description: "Must be the network's mothership: any registered service signer awards the auction." }),
        referrer: addressOrZero.meta({
          description: 'Must be the zero address (absent or null is): the filling maker submits the request, so a referrer would reach makers.',
        }),
      },
      { message: 'must be an object' },
    )
    .meta({ description: 'The EIP-712 DutchFillRequest the taker signed (domain DutchFill, version 1, the mothership), in snake_case.' })
    .superRefine((r, ctx) => {
      if (!parsedAt(ctx, ['auction_end'])) return;
      const start = parsedAt(ctx, ['dutch_premium', 'auction_start']) ? r.dutch_premium.auction_start : undefined;
      const expiry = parsedAt(ctx, ['intents', 0, 'expiry_timestamp']) ? r.intents[0].expiry_timestamp : undefined;
      if (start !== undefined && r.auction_end <= start) {
        ruleIssue(ctx, ['auction_end'], `must be after dutch_premium.auction_start (${start})`);
      } else if (r.auction_end <= now) {
        ruleIssue(ctx, ['auction_end'], `must be in the future (now is ${now})`);
      } else if (expiry !== undefined && r.auction_end > expiry) {
        ruleIssue(ctx, ['auction_end'], `must not be after the legs' expiry_timestamp (${expiry})`);
      }
    }, whenObject);
}

const schemaAt = rebuiltWhenChanged(dutchRequestSchema);

/**
 * The `dutch_request` field at `path` of a document read at `now`, parsed into the on-chain
 * DutchFillRequest (for embedding in a larger schema that reports every bad field at once).
 */
export function dutchRequestField(now: number, path: string) {
  return schemaAt(now, path).transform(toRequest);
}

/**
 * Parses the snake_case `dutch_request` into the on-chain DutchFillRequest; throws
 * ValidationError naming every bad field. `referrer` and `required_authority` default to the
 * zero address.
 */
export function parseDutchRequest(raw: unknown, opts: { now: number; path?: string }): DutchFillRequest {
  const path = opts.path ?? 'dutch_request';
  return toRequest(parseOrThrow(schemaAt(opts.now, path), raw, path));
}

function toRequest(r: z.output<ReturnType<typeof dutchRequestSchema>>): DutchFillRequest {
  const p = r.dutch_premium;
  return {
    intents: r.intents.map(intentToLeg),
    tokens: r.tokens,
    dutchPremium: {
      token: p.token,
      makerPaysTaker: p.maker_pays_taker,
      startPremium: p.start_premium,
      endPremium: p.end_premium,
      decayRate: p.decay_rate,
      auctionStart: p.auction_start,
    },
    auctionEnd: r.auction_end,
    makerAddressHash: r.maker_address_hash,
    takerNonce: r.taker_nonce,
    requiredAuthority: r.required_authority,
    requiredDutchAuthority: r.required_dutch_authority,
    referrer: r.referrer,
  };
}

/** The snake_case JSON form of an on-chain DutchFillRequest (inverse of parseDutchRequest). */
export function dutchRequestToJson(req: DutchFillRequest): DutchRequestJson {
  return {
    intents: req.intents.map((l) => intentToJson(legToIntent(l))),
    tokens: req.tokens.map((t) => ({ token0: t.token0, token1: t.token1, premium_token: t.premiumToken })),
    dutch_premium: {
      token: req.dutchPremium.token,
      maker_pays_taker: req.dutchPremium.makerPaysTaker,
      start_premium: req.dutchPremium.startPremium.toString(),
      end_premium: req.dutchPremium.endPremium.toString(),
      decay_rate: req.dutchPremium.decayRate.toString(),
      auction_start: req.dutchPremium.auctionStart,
    },
    auction_end: req.auctionEnd,
    maker_address_hash: req.makerAddressHash.toLowerCase(),
    taker_nonce: req.takerNonce.toString(),
    required_authority: req.requiredAuthority,
    required_dutch_authority: req.requiredDutchAuthority,
    referrer: req.referrer,
  };
}
