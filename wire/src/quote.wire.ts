import { z } from 'zod';
import { wireAddress, wireBytes32, wireChainId, wireDecimal, wireHex, wireTime, wireUnixSeconds } from './formats';
import { errorBodySchema } from './errors/error-body';
import { POLARITIES } from './protocol/constants';

/**
 * The one home of a quote's wire form: the states as data, and the zod schema of
 * everything that goes out about a quote (REST answers and socket payloads). The views
 * (quote.views.ts) are typed from these schemas, the route specs (api/routes/quote.http.ts)
 * and the topic table document them, the repositories write their SQL literals from the lists
 * (shared/quotes/quote.sql.ts),
 * and test/integration/foundation/state-checks.test.ts holds the lists equal to the CHECK
 * constraints of the migrated database. The Dutch phases and Dutch-only payloads are in
 * wire/src/dutch.wire.ts.
 */

/** A quote's states (quotes.state): open -> expired | filled | cancelled. */
export const QUOTE_STATES = ['open', 'expired', 'filled', 'cancelled'] as const;
export type QuoteState = (typeof QUOTE_STATES)[number];

export const OFFER_FORMATS = ['package_only', 'dutch_only'] as const;

const bit = z.union([z.literal(0), z.literal(1)]);

/** A leg of a quote, in the JSON form of every quote payload. */
export const legWire = z.strictObject({
  pair6909_contract: wireAddress,
  option_type: bit.meta({ description: '0 call, 1 put.' }),
  structure: bit,
  direction: bit.meta({ description: "The taker's side: 0 Buy, 1 Sell." }),
  strike_wad: wireDecimal,
  amount: wireDecimal,
  start_exercise_timestamp: wireUnixSeconds,
  expiry_timestamp: wireUnixSeconds,
});

/** What makers see of a standard quote (the `rfq_request` of the maker feed and maker topics): never the taker's address, referrer or salt. */
export const makerQuoteWire = z.strictObject({
  quote_id: z.uuid(),
  chain_id: wireChainId,
  offer_format: z.enum(OFFER_FORMATS),
  strategy: z.string(),
  polarity: z.enum(POLARITIES),
  directions: z.array(bit),
  taker_address_hash: wireBytes32,
  legs: z.array(legWire),
  expires_at: wireTime,
  created_at: wireTime,
});

/** The taker's own standard quote: what POST /api/quote and the poll answer, and the taker stream's `rfq_request`. */
export const takerQuoteWire = z.strictObject({
  id: z.uuid(),
  ...makerQuoteWire.shape,
  state: z.enum(QUOTE_STATES),
  taker_address: wireAddress,
  referrer: wireAddress,
  taker_salt: wireBytes32,
  closed_at: wireTime.nullable(),
  fill_tx_hash: wireBytes32.nullable(),
});

/** A stored package offer: the answer of POST /api/quote/:id, the poll's offers and the `rfq_offer` payload. */
export const offerWire = z.strictObject({
  offer_id: z.uuid(),
  quote_id: z.uuid(),
  chain_id: wireChainId,
  maker: wireAddress,
  offer_type: z.literal('package'),
  package_premium: wireDecimal,
  maker_pays_taker: z.boolean(),
  premium_token: wireAddress,
  nonce: wireDecimal,
  deadline: wireUnixSeconds,
  signature: wireHex,
  created_at: wireTime,
});

/** A quote's outcome as a maker that offered learns it (`rfq_result` on its maker topic). */
export const makerResultWire = z.strictObject({
  quote_id: z.uuid(),
  chain_id: wireChainId,
  state: z.enum(QUOTE_STATES),
  closed_at: wireTime.nullable(),
});

/** A quote's outcome as the taker learns it (`rfq_result` on the taker stream). */
export const takerResultWire = z.strictObject({ ...makerResultWire.shape, fill_tx_hash: wireBytes32.nullable() });

/** What a reorg tells the taker and the makers when it rolls a fill back (`rfq_result` from the indexer): nothing that names the taker. */
export const reopenedResultWire = z.strictObject({
  quote_id: z.uuid(),
  chain_id: wireChainId,
  state: z.enum(QUOTE_STATES),
  reorged: z.literal(true),
  rolled_back_to: z.number().int().min(0).meta({ description: 'The block the chain was rolled back to.' }),
});

/**
 * `rfq_result` on a maker's topic, as the topic table documents it: one object with every field
 * either outcome carries (makerResultWire, or reopenedResultWire after a reorg). `quote_id` is always there.
 */
export const rfqResultMakerWire = z.looseObject({
  quote_id: z.string(),
  chain_id: wireChainId.optional(),
  state: z.enum(QUOTE_STATES).optional(),
  closed_at: wireTime.nullable().optional().meta({ description: 'When the quote closed (absent after a reorg).' }),
  reorged: z.literal(true).optional().meta({ description: 'A reorg rolled the fill back: the quote is `state` again.' }),
  rolled_back_to: reopenedResultWire.shape.rolled_back_to.optional(),
});

/** `rfq_result` on the taker's stream: the maker's fields plus the settling transaction (takerResultWire). */
export const rfqResultTakerWire = rfqResultMakerWire.extend({ fill_tx_hash: wireBytes32.nullable().optional() });

/** `rfq_offer` on a maker's own topic: its own offer (offerWire). */
export const rfqOfferMakerWire = z.looseObject({ ...offerWire.partial().shape, quote_id: z.string() });

const dryRunCommon = {
  dry_run: z.literal(true),
  quote_id: z.uuid(),
  kind: z.enum(['package_offer', 'dutch_bid']).meta({
    description:
      'The route the quote takes: `package_offer` (POST /api/quote/:id, a standard quote) or `dutch_bid` (POST /api/quote/:id/offer, a Dutch quote).',
  }),
};

/**
 * POST /api/quote/:id/dry-run: what the real offer route would answer for this body, had it been
 * posted there now. Nothing was stored, published or enqueued, and no nonce was spent.
 */
export const offerDryRunWire = z
  .discriminatedUnion('would', [
    z.strictObject({
      ...dryRunCommon,
      would: z.literal('accept'),
      status: z.literal(201).meta({ description: 'The real route would store it and answer 201.' }),
      error: z.null(),
    }),
    z.strictObject({
      ...dryRunCommon,
      would: z.literal('refuse'),
      status: z.number().int().min(400).max(599).meta({ description: 'The status the real route would answer (a 4xx, or 503 when it cannot decide).' }),
      error: errorBodySchema.meta({ description: "The real route's error body, as it would answer it (its request_id is this request's)." }),
    }),
  ])
  .meta({ description: 'The verdict of the real route on the body; a 200 whatever the verdict.' });
