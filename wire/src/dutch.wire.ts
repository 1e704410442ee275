import { z } from 'zod';
import { wireAddress, wireBytes32, wireChainId, wireDecimal, wireHex, wireTime, wireUnixSeconds } from './formats';
import { POLARITIES } from './protocol/constants';
import { legWire, OFFER_FORMATS, offerWire, QUOTE_STATES, takerQuoteWire, type QuoteState } from './quote.wire';

/**
 * The wire form of what only a Dutch quote sends (docs/DUTCH.md): its phases as data, the signed
 * request and award, bids, and the competing / fillable / award / fade payloads. Views
 * (dutch.views.ts) are typed from these schemas; the route specs and the topic table
 * document them; test/integration/foundation/state-checks.test.ts holds the phase list equal to
 * the CHECK constraints of `quotes.dutch_phase` and `quotes.dutch_published_phase`.
 */

/**
 * The live phases of an open Dutch quote (quotes.dutch_phase; null on a standard quote). Its
 * `open` (anyone may fill) is a phase, not the quote state `open`: the server's SQL writes
 * `DUTCH_PHASE_SQL.open` or `QUOTE_STATE_SQL.open` (shared/dutch/dutch.sql.ts, shared/quotes/quote.sql.ts),
 * never the bare word.
 */
export const DUTCH_PHASES = ['competing', 'exclusive', 'open'] as const;
export type DutchPhase = (typeof DUTCH_PHASES)[number];

/** What clients see as a Dutch quote's `dutch_phase`: the live phase while open, else the closing state. */
export const VISIBLE_DUTCH_PHASES = [...DUTCH_PHASES, ...QUOTE_STATES.filter((s): s is Exclude<QuoteState, 'open'> => s !== 'open')] as const;
export type VisibleDutchPhase = DutchPhase | Exclude<QuoteState, 'open'>;

/** Highest improvement a bid may offer on either side, in basis points. */
export const MAX_BID_BPS = 5_000;

const bit = z.union([z.literal(0), z.literal(1)]);
const bps = () => z.number().int().min(0).max(MAX_BID_BPS);

/** The signed DutchFillRequest as the quote stores and shows it. */
export const dutchRequestWire = z
  .strictObject({
    intents: z.array(
      z.strictObject({
        pair6909_contract: wireAddress,
        option_type: bit,
        structure: bit,
        start_exercise_timestamp: wireUnixSeconds,
        expiry_timestamp: wireUnixSeconds,
        strike_wad: wireDecimal,
        amount: wireDecimal,
      }),
    ),
    tokens: z.array(z.strictObject({ token0: wireAddress, token1: wireAddress, premium_token: wireAddress })),
    dutch_premium: z.strictObject({
      token: wireAddress,
      maker_pays_taker: z.boolean(),
      start_premium: wireDecimal,
      end_premium: wireDecimal,
      decay_rate: wireDecimal,
      auction_start: wireUnixSeconds,
    }),
    auction_end: wireUnixSeconds,
    maker_address_hash: wireBytes32,
    taker_nonce: wireDecimal,
    required_authority: wireAddress,
    required_dutch_authority: wireAddress,
    referrer: wireAddress,
  })
  .meta({ description: 'The signed DutchFillRequest, snake_case (docs/DUTCH.md).' });

/** The auctioneer's signed award, public from the end of the competition (docs/DUTCH.md, "The award's JSON, field by field"). */
export const dutchAwardWire = z
  .strictObject({
    request_digest: wireBytes32.meta({
      description: "EIP-712 digest of the DutchFillRequest it awards (the quote's `request_digest`): the DutchAward struct's `requestDigest`.",
    }),
    filler: wireAddress.meta({
      description:
        "The winning bid's filler: the only caller that gets the winning price during the exclusive window (others pay the override); the zero address when no bid won. The struct's `filler`.",
    }),
    improvement_bps: wireDecimal.meta({
      description:
        "The winning bid's improvement on the taker's side, in basis points of the curve price; \"0\" when no bid won. The struct's `improvementBps`.",
    }),
    not_before: wireUnixSeconds.meta({
      description: "When the award was signed (the competition's end), unix seconds: no fill before it. The struct's `notBefore`.",
    }),
    exclusive_end: wireUnixSeconds.meta({
      description: "The last second of the filler's exclusivity, unix seconds (equals `not_before` when no bid won). The struct's `exclusiveEnd`.",
    }),
    signer: wireAddress.meta({ description: 'The auctioneer key that signed it (a service signer registered on the mothership); not part of the struct.' }),
    signature: wireHex.meta({
      description: "The auctioneer's 65-byte EIP-712 signature of the five struct members (domain DutchFill, version 1): the fill's `awardSignature`.",
    }),
  })
  .meta({ description: "The auctioneer's signed DutchAward, public from the end of the competition (docs/PROTOCOL.md)." });

const dutchPhaseWire = z.enum(VISIBLE_DUTCH_PHASES);
const dutchPhaseText = 'Dutch quotes: the live phase while open, else the closing state (docs/DUTCH.md).';
const competeEndsText = 'Dutch: end of the competition (bids close).';
const exclusiveEndsText = "Dutch: end of the winner's exclusive window (planned until the award).";
const digestText = 'Dutch: EIP-712 digest of the signed request; the DutchFilled event carries it.';
const winnerText = 'Dutch: the maker whose bid won, once awarded.';

/** The taker's own Dutch quote (the taker stream's `rfq_request`): the standard taker quote plus phase, deadlines, request and award. */
export const takerDutchQuoteWire = z.strictObject({
  ...takerQuoteWire.shape,
  dutch_phase: dutchPhaseWire.meta({ description: dutchPhaseText }),
  compete_ends_at: wireTime.meta({ description: competeEndsText }),
  exclusive_ends_at: wireTime.meta({ description: exclusiveEndsText }),
  dutch_request: dutchRequestWire,
  taker_signature: wireHex,
  request_digest: wireBytes32.meta({ description: digestText }),
  award: dutchAwardWire.nullable(),
  winner: wireAddress.nullable().meta({ description: winnerText }),
});

/** The quote in the REST answers (create, poll): a standard quote, or a Dutch one with the Dutch fields present. */
export const quoteBodyWire = z.strictObject({
  ...takerQuoteWire.shape,
  // Dutch quotes only (offer_format dutch_only):
  dutch_phase: dutchPhaseWire.optional().meta({ description: dutchPhaseText }),
  compete_ends_at: wireTime.optional().meta({ description: competeEndsText }),
  exclusive_ends_at: wireTime.optional().meta({ description: exclusiveEndsText }),
  dutch_request: dutchRequestWire.optional(),
  taker_signature: wireHex.optional(),
  request_digest: wireBytes32.optional().meta({ description: digestText }),
  award: dutchAwardWire.nullable().optional(),
  winner: wireAddress.nullable().optional().meta({ description: winnerText }),
});

/** A Dutch bid as the taker sees it (poll, and `rfq_offer` on the taker stream): the improvement on the taker's own side. */
export const takerBidWire = z.strictObject({
  quote_id: z.uuid(),
  bid_id: z.uuid(),
  maker: wireAddress,
  side: z.enum(['buy', 'sell']),
  override_bps: bps(),
  version: z.number().int().min(1),
  bid_at: wireTime,
});

/** A Dutch bid as its maker stored it (the answer of POST /api/quote/:id/offer). */
export const makerBidWire = z.strictObject({
  bid_id: z.uuid(),
  quote_id: z.uuid(),
  maker: wireAddress,
  filler: wireAddress.meta({ description: 'The address the award names if this bid wins: the one that gets the winning price on chain.' }),
  buy_override_bps: bps(),
  sell_override_bps: bps(),
  version: z.number().int().min(1).meta({ description: 'Grows by one each time this maker replaces its bid.' }),
  replaced: z.boolean(),
  bid_at: wireTime,
});

/** A leg while the auction competes: the package's shape, no direction. */
export const competingLegWire = legWire.omit({ direction: true });

/** The maker feed's `rfq_request` while a Dutch quote competes: nothing that depends on the taker's side. */
export const competingWire = z.strictObject({
  quote_id: z.uuid(),
  chain_id: wireChainId,
  offer_format: z.enum(OFFER_FORMATS),
  dutch_phase: z.literal('competing'),
  strategy: z.string(),
  legs: z.array(competingLegWire),
  premium_token: wireAddress,
  compete_ends_at: wireTime,
  expires_at: wireTime,
  created_at: wireTime,
  bid: z.strictObject({
    buy_override_bps: z.strictObject({ min: z.literal(0), max: z.literal(MAX_BID_BPS) }),
    sell_override_bps: z.strictObject({ min: z.literal(0), max: z.literal(MAX_BID_BPS) }),
  }),
});

/** The maker feed's `rfq_request` from the award on: everything a filler submits on chain. */
export const fillableWire = z.strictObject({
  quote_id: z.uuid().meta({ description: 'The Dutch quote.' }),
  chain_id: wireChainId.meta({ description: 'The chain to fill on (its mothership: `contracts.mothership` in GET /api/networks).' }),
  offer_format: z.enum(OFFER_FORMATS).meta({ description: 'Always `dutch_only` here.' }),
  dutch_phase: dutchPhaseWire.meta({ description: dutchPhaseText }),
  strategy: z.string().meta({ description: "The package's recognised strategy (e.g. `call_spread`)." }),
  polarity: z.enum(POLARITIES).meta({ description: "The taker's side of the package as shown to makers (docs/PROTOCOL.md)." }),
  directions: z.array(bit).meta({
    description: "One per leg, 0 or 1: the fill's `directions` argument; keccak256(abi.encode(directions)) is `dutch_request.maker_address_hash`.",
  }),
  legs: z.array(legWire).meta({ description: 'The legs of the signed request, each with its direction.' }),
  premium_token: wireAddress.meta({ description: 'The premium token (`dutch_request.dutch_premium.token`).' }),
  taker_address_hash: wireBytes32.meta({ description: "The quote's salted taker hash: identifies nothing, and is no argument of the Dutch fill." }),
  dutch_request: dutchRequestWire.meta({ description: "The taker-signed DutchFillRequest, snake_case: the fill's `request` (dutchFillArgs)." }),
  taker_signature: wireHex.meta({ description: "The taker's EIP-712 signature of the request: the fill's `takerSignature`." }),
  request_digest: wireBytes32.meta({ description: digestText }),
  award: dutchAwardWire.nullable(),
  compete_ends_at: wireTime.meta({ description: 'When the competition ended (bids closed).' }),
  exclusive_ends_at: wireTime.meta({ description: "The end of the winner's exclusive window (the award's `exclusive_end`, as ISO 8601)." }),
  expires_at: wireTime.meta({ description: "When the quote ends (at the latest the request's `auction_end`): no fill after it." }),
  created_at: wireTime.meta({ description: 'When the taker created the quote.' }),
});

/**
 * `dutch_award` to the winner alone, field by field as it is sent (`winnerAwardView`): the
 * fillable payload in phase `exclusive`, whose signed award names the winner's filler.
 */
export const winnerAwardWire = fillableWire
  .extend({
    dutch_phase: dutchPhaseWire.meta({
      description:
        "`exclusive`: the winner's window is running, the phase the notice is sent in (a notice sent again after a failed publish carries the phase by then).",
    }),
    award: dutchAwardWire.meta({
      description:
        "The signed award naming this winner's filler (never null here): its five struct members are the fill's `award`, its `signature` the `awardSignature` (docs/DUTCH.md, \"The award's JSON, field by field\").",
    }),
  })
  .meta({
    description:
      "The winner's notice: everything executeDutchFill(request, takerSignature, directions, award, awardSignature) needs, sent once when the award is made. Carries no taker address or referrer.",
  });

/**
 * `rfq_request` on the maker feed and a maker's topic, as the topic table documents it: one
 * object with every field any of its forms carries (makerQuoteWire for a standard quote;
 * competingWire, then fillableWire, for a Dutch one): never the taker's address, referrer or
 * salt. `quote_id` and `chain_id` are always there.
 */
export const rfqRequestMakerWire = z.looseObject({
  ...fillableWire.partial().shape,
  quote_id: z.string(),
  chain_id: z.number().int(),
  dutch_phase: dutchPhaseWire.optional().meta({ description: 'Dutch quotes only: `competing` first, then the phase the award opened.' }),
  directions: fillableWire.shape.directions.optional().meta({ description: 'Absent while a Dutch quote competes (it would give the side away).' }),
  taker_address_hash: wireBytes32.optional().meta({ description: 'Absent while a Dutch quote competes.' }),
  legs: z
    .array(legWire.partial({ direction: true }))
    .optional()
    .meta({ description: "Each leg; a Dutch quote that competes leaves out each leg's direction." }),
  bid: competingWire.shape.bid.optional().meta({ description: 'Dutch, while competing: the bounds of a bid, in basis points.' }),
});

/**
 * `rfq_request` on the taker's own stream: the taker's quote (takerQuoteWire), with the Dutch
 * fields on a Dutch quote (takerDutchQuoteWire). `quote_id` and `chain_id` are always there.
 */
export const rfqRequestTakerWire = z.looseObject({
  ...takerDutchQuoteWire.partial().shape,
  quote_id: z.string(),
  chain_id: z.number().int(),
});

/** `rfq_offer` on the taker's stream: a package offer (offerWire), or on a Dutch quote a bid's side for the taker (takerBidWire). */
export const rfqOfferTakerWire = z.looseObject({
  ...offerWire.partial().shape,
  ...takerBidWire.partial().shape,
  quote_id: z.string(),
});

/** `dutch_bid` on the bidding maker's own topic: its bid as stored (makerBidWire), each version once. */
export const dutchBidEventWire = z.looseObject({
  ...makerBidWire.partial().shape,
  bid_id: z.string(),
  quote_id: z.string(),
});

/** `dutch_award` as the topic table documents it: exactly the winner's payload (winnerAwardWire), every field present. */
export const dutchAwardEventWire = winnerAwardWire;

/** `dutch_fade` (rfq_maker of the winner): an award whose winner let the exclusive window pass without filling, with the maker's fade status. */
export const dutchFadeEventWire = z.looseObject({
  quote_id: z.string(),
  chain_id: z.number().int(),
  exclusive_ends_at: z.string(),
  dutch_fades: z.looseObject({ count: z.number().int(), window_seconds: z.number().int(), limit: z.number().int(), blocked_until: z.string().nullable() }),
});
