import { zeroAddress, type Address, type Hex } from 'viem';
import { z } from 'zod';
import {
  canonicalSignatureSchema,
  curveFavoursTakerFirst,
  direction,
  directionSchema,
  directionsHash,
  dutchRequestField,
  MAX_LEGS,
  type Direction,
  type DutchFillRequest,
  type Polarity,
} from '../protocol';
import {
  CHAIN_ID,
  evmAddress,
  intSchema,
  parsedAt,
  parseOrThrow,
  PG_INT4_MAX,
  rebuiltWhenChanged,
  required,
  ruleIssue,
  sizedArray,
  unknownKeys,
  whenObject,
} from '../platform/validation';
import { QUOTE_MAX_EXPIRES_IN_LIMIT, type QuoteRequestLimits } from '../quotes';

/**
 * The Dutch create body of `POST /api/quote` (docs/DUTCH.md): how the route tells it from a
 * standard one, its schema and parser. The standard body is shared/quotes/quote-request.ts's.
 */

/** Whether a create body asks for the Dutch flow (`offer_formats: dutch_only`, or a present `dutch_request`). */
export const isDutchRequest = (body: unknown): boolean => {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
  const b = body as Record<string, unknown>;
  return b.offer_formats === 'dutch_only' || (b.dutch_request !== undefined && b.dutch_request !== null);
};

/** The operator's bounds on Dutch auctions (setting `dutch_limits`, docs/DUTCH.md). */
export interface DutchLimits {
  /** Longest exclusive window a taker may ask for. */
  max_exclusive_ms: number;
  /** Longest auction (auction_end - now) accepted at create. */
  max_auction_seconds: number;
  /** Competition window when the taker names none. */
  default_compete_ms: number;
  /** Exclusive window when the taker names none. */
  default_exclusive_ms: number;
}

/** A Dutch create, parsed: every field normalised, the signed request in its on-chain form. */
export interface DutchQuoteRequest {
  chain_id: number;
  taker_address: Address;
  directions: Direction[];
  /** The one polarity the directions and the legs' structures agree on. */
  polarity: Polarity;
  expires_in: number;
  /** As asked (the service clamps it to the auction's time left), or null for the default. */
  compete_ms: number | null;
  /** From exclusive_ms or exclusive_seconds, or null for the default. */
  exclusive_ms: number | null;
  taker_signature: Hex;
  request: DutchFillRequest;
}

const DUTCH_KNOWN = [
  'chain_id',
  'taker_address',
  'offer_formats',
  'directions',
  'expires_in',
  'compete_ms',
  'exclusive_ms',
  'exclusive_seconds',
  'taker_signature',
  'dutch_request',
  'intents',
] as const;

/**
 * The Dutch create body at `now`. Everything that needs no database or chain is checked here,
 * each problem at its field: the curve's direction, the directions' hash and polarity, the
 * zero referrer of the API-brokered path, and the operator's limits (a fill authority is
 * asked on chain by the Dutch service).
 */
function dutchQuoteRequestSchema(now: number, maxExpiresIn: number, maxExclusiveMs: number, maxAuctionSeconds: number) {
  const ms = (what: string, max: number) => intSchema({ min: 0, max, message: `must be an integer number of ${what} from 0 to ${max}` });
  const shape = {
    chain_id: required(intSchema(CHAIN_ID)).meta({ description: 'A known network (GET /api/networks).' }),
    taker_address: required(evmAddress).meta({
      description: 'The wallet that signed dutch_request (taker_signature must recover to it); never shown to makers as a field.',
    }),
    offer_formats: z
      .literal('dutch_only', { message: 'must be "dutch_only" for a Dutch request (or left out)' })
      .optional()
      .meta({ description: '`dutch_only`, or left out when dutch_request is present.' }),
    directions: required(sizedArray(directionSchema, 1, MAX_LEGS)).meta({
      description: 'The taker\'s side per leg of dutch_request.intents: 0 or "buy", 1 or "sell".',
    }),
    expires_in: required(intSchema({ min: 1, max: maxExpiresIn, message: `must be an integer number of seconds from 1 to ${maxExpiresIn}` })).meta({
      description: 'Quote window in seconds, at most QUOTE_MAX_EXPIRES_IN.',
    }),
    compete_ms: ms('milliseconds', PG_INT4_MAX).optional().meta({ description: 'Length of the competing phase in milliseconds, clamped to the auction.' }),
    exclusive_ms: ms('milliseconds', maxExclusiveMs)
      .optional()
      .meta({ description: "Length of the winner's exclusive window, at most dutch_limits.max_exclusive_ms." }),
    exclusive_seconds: ms('seconds', Math.floor(maxExclusiveMs / 1000))
      .optional()
      .meta({ description: 'The same in seconds; with exclusive_ms too, both must agree.' }),
    taker_signature: required(canonicalSignatureSchema).meta({
      description:
        'EIP-712 DutchFillRequest signature by taker_address, 65 bytes hex, low s (s <= n/2) and v 27 or 28, as the mothership requires (docs/PROTOCOL.md).',
    }),
    dutch_request: required(dutchRequestField(now, 'dutch_request')),
    // Intents are the signed request's; a copy at the top level is ignored.
    intents: z.unknown().optional().meta({ deprecated: true, description: 'Ignored: the legs are dutch_request.intents.' }),
  };
  const known = new Set<string>(DUTCH_KNOWN);
  return z
    .looseObject(shape, { message: 'must be a JSON object' })
    .superRefine((b, ctx) => {
      unknownKeys(ctx, b, known, 'is not a field of a Dutch quote request');
      if (parsedAt(ctx, ['exclusive_ms']) && parsedAt(ctx, ['exclusive_seconds']) && b.exclusive_ms !== undefined && b.exclusive_seconds !== undefined) {
        if (b.exclusive_ms !== b.exclusive_seconds * 1000) {
          ruleIssue(ctx, ['exclusive_seconds'], `disagrees with exclusive_ms (${b.exclusive_ms}): send one of them`);
        }
      }
      // A rule broken inside dutch_request leaves it unconverted: nothing more to judge there.
      if (!parsedAt(ctx, ['dutch_request']) || !('dutchPremium' in b.dutch_request)) return;
      const r = b.dutch_request;
      if (r.referrer !== zeroAddress) {
        ruleIssue(
          ctx,
          ['dutch_request', 'referrer'],
          'must be the zero address: the filling maker submits the signed request, so a referrer in it would reach makers',
        );
      }
      if (!curveFavoursTakerFirst(r.dutchPremium)) {
        ruleIssue(
          ctx,
          ['dutch_request', 'dutch_premium', 'end_premium'],
          r.dutchPremium.makerPaysTaker
            ? "must be below start_premium: the maker pays, so the curve starts at the taker's best (highest) premium and falls"
            : "must be above start_premium: the taker pays, so the curve starts at the taker's best (lowest) premium and rises",
        );
      }
      if (r.auctionEnd > now + maxAuctionSeconds) {
        ruleIssue(
          ctx,
          ['dutch_request', 'auction_end'],
          `must be at most ${maxAuctionSeconds} seconds from now (operator limit dutch_limits.max_auction_seconds)`,
        );
      }
      if (!parsedAt(ctx, ['directions'])) return;
      if (b.directions.length !== r.intents.length) {
        ruleIssue(ctx, ['directions'], `must have one direction per leg of dutch_request.intents (${r.intents.length})`);
        return;
      }
      if (directionsHash(b.directions) !== r.makerAddressHash.toLowerCase()) {
        ruleIssue(ctx, ['dutch_request', 'maker_address_hash'], 'must be directionsHash(directions) (keccak256(abi.encode(uint8[])))');
      }
      const polarity: Polarity = b.directions[0] === direction('b_is_buy', r.intents[0].structure as 0 | 1) ? 'b_is_buy' : 'a_is_buy';
      r.intents.forEach((leg, i) => {
        if (direction(polarity, leg.structure as 0 | 1) !== b.directions[i]) {
          ruleIssue(
            ctx,
            ['directions', i],
            `must follow the legs' structures with one polarity (${polarity} from leg 0): flip dutch_request.intents[${i}].structure or this direction`,
          );
        }
      });
    }, whenObject)
    .meta({ additionalProperties: false, description: 'A Dutch auction request (docs/DUTCH.md); unknown fields are refused.' });
}

/**
 * The Dutch create body as the API documents it: the parser itself at no particular time, with
 * the widest exclusive window an operator may set. The auction-length limit counts from the
 * time of the request, which a document has none of: the field descriptions state it.
 */
export const dutchQuoteRequestDocument = dutchQuoteRequestSchema(0, QUOTE_MAX_EXPIRES_IN_LIMIT, 3_600_000, Number.MAX_SAFE_INTEGER);

const dutchSchemaAt = rebuiltWhenChanged(dutchQuoteRequestSchema);

/** Parses a Dutch `POST /api/quote` body, reporting every bad field at once. */
export function parseDutchQuoteRequest(body: unknown, limits: QuoteRequestLimits & { dutch: DutchLimits }): DutchQuoteRequest {
  const d = limits.dutch;
  const b = parseOrThrow(dutchSchemaAt(limits.now, limits.maxExpiresIn, d.max_exclusive_ms, d.max_auction_seconds), body);
  const r = b.dutch_request;
  return {
    chain_id: b.chain_id,
    taker_address: b.taker_address,
    directions: b.directions,
    polarity: b.directions[0] === direction('b_is_buy', r.intents[0].structure as 0 | 1) ? 'b_is_buy' : 'a_is_buy',
    expires_in: b.expires_in,
    compete_ms: b.compete_ms ?? null,
    exclusive_ms: b.exclusive_ms ?? (b.exclusive_seconds !== undefined ? b.exclusive_seconds * 1000 : null),
    taker_signature: b.taker_signature as Hex,
    request: r,
  };
}
