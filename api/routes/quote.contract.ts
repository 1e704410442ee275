import { z } from 'zod';
import { offerRequestDocument, quoteRequestDocument } from '../../shared/quotes';
import { defineRoute } from '../contract/route-contract';
import { errorCase, VALIDATION_FAILED } from '../contract/error-cases';
import { wireAddress, wireBytes32, wireChainId, wireDecimal, wireHex, wireTime, wireUnixSeconds } from '../contract/wire-formats';

/** POST /api/quote/:id/offer: a Dutch both-side bid (the Dutch flow is not available yet). */
export const dutchBidBody = z.strictObject({
  buy_override_bps: z.number().int().meta({ description: 'Improvement over the curve price on the buy side, in basis points.' }),
  sell_override_bps: z.number().int().meta({ description: 'Improvement over the curve price on the sell side, in basis points.' }),
});

const legView = z.strictObject({
  pair6909_contract: wireAddress,
  option_type: z.union([z.literal(0), z.literal(1)]).meta({ description: '0 call, 1 put.' }),
  structure: z.union([z.literal(0), z.literal(1)]),
  direction: z.union([z.literal(0), z.literal(1)]).meta({ description: 'The taker\'s side: 0 Buy, 1 Sell.' }),
  strike_wad: wireDecimal,
  amount: wireDecimal,
  start_exercise_timestamp: wireUnixSeconds,
  expiry_timestamp: wireUnixSeconds,
});

/** The taker's own quote, as POST /api/quote and the poll answer it; makers never see taker_address, referrer or taker_salt. */
const takerQuoteView = z.strictObject({
  id: z.uuid(),
  quote_id: z.uuid(),
  chain_id: wireChainId,
  offer_format: z.enum(['package_only', 'dutch_only']),
  strategy: z.string(),
  polarity: z.enum(['b_is_buy', 'a_is_buy']),
  directions: z.array(z.union([z.literal(0), z.literal(1)])),
  taker_address_hash: wireBytes32,
  legs: z.array(legView),
  expires_at: wireTime,
  created_at: wireTime,
  state: z.enum(['open', 'expired', 'filled', 'cancelled']),
  taker_address: wireAddress,
  referrer: wireAddress,
  taker_salt: wireBytes32,
  closed_at: wireTime.nullable(),
  fill_tx_hash: wireBytes32.nullable(),
});

const offerView = z.strictObject({
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

const QUOTE_NOT_FOUND = errorCase(404, 'quote_not_found', 'quote 0b6f3c1e-2d4a-4f5e-8a9b-0c1d2e3f4a5b not found');
const DUTCH_NOT_AVAILABLE = errorCase(501, 'dutch_not_available', 'Dutch auctions (offer_formats "dutch_only") are not available yet; create a standard quote');

const PAIR = '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512';
const EXPIRY = 1924992000; // 2031-01-01, so the example stays valid for years
const TAKER = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const butterflyLeg = (structure: 0 | 1, strike: string, amount: string) => ({
  pair6909_contract: PAIR,
  option_type: 'call',
  structure,
  start_exercise_timestamp: 0,
  expiry_timestamp: EXPIRY,
  strike_wad: strike,
  amount,
});

/** A long call butterfly: low and high wings bought, the body sold twice. */
export const BUTTERFLY_EXAMPLE = {
  chain_id: 31337,
  taker_address: TAKER,
  polarity: 'b_is_buy',
  expires_in: 60,
  intents: [
    butterflyLeg(0, '2500000000000000000000', '1000000000000000000'),
    butterflyLeg(1, '3000000000000000000000', '2000000000000000000'),
    butterflyLeg(0, '3500000000000000000000', '1000000000000000000'),
  ],
};

/** A package offer on that butterfly (its legs in the quote's JSON form). */
export const PACKAGE_OFFER_EXAMPLE = {
  offer_type: 'package',
  package_premium: '125000000',
  maker_pays_taker: false,
  taker_address_hash: '0x5c3b1f0e2a9d8c7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b',
  premium_token: '0xa513E6E4b8f2a923D98304ec87F64353C4D5C853',
  legs: BUTTERFLY_EXAMPLE.intents.map((l) => ({ ...l, option_type: 0 })),
  maker: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
  nonce: '1',
  deadline: EXPIRY - 86400,
  signature: `0x${'11'.repeat(64)}1b`,
};

const idParams = z.object({ id: z.string().meta({ description: 'The quote id (a uuid); anything else is not found.' }) });

/** Standard RFQ: create, poll, and maker package offers. */
export const quoteContracts = {
  createQuote: defineRoute({
    method: 'post',
    path: '/api/quote',
    summary: 'Create an options RFQ quote',
    description:
      'No login needed: the bot challenge (X-Challenge-Response) when enforced, or a taker delegate. Join `rfq_stream:<stream_token>` ' +
      'on the socket right away to hear offers. An Idempotency-Key makes a retry answer the first response (to the same caller only).',
    tags: ['quotes'],
    auth: { action: 'create_quote' },
    cache: 'no-store',
    request: {
      headers: z.object({
        'idempotency-key': z.string().optional().meta({ description: '1-255 printable ASCII characters; a retry with the same key and body replays the answer.' }),
      }),
      // The service's own parser, documented as it is: shared/quotes/quote-request.ts.
      body: quoteRequestDocument,
      bodyCheck: 'service',
      examples: { butterfly: { summary: 'Buy a call butterfly (directions [1, 0, 1])', value: BUTTERFLY_EXAMPLE } },
    },
    responses: {
      201: {
        description: 'The quote, its private stream token and the topic to join. Header Idempotent-Replayed: true on a replay.',
        schema: z.strictObject({
          quote: takerQuoteView,
          stream_token: z.string().meta({ description: 'Private: polls the quote and joins its stream.' }),
          topic: z.string().meta({ description: '`rfq_stream:<stream_token>`' }),
        }),
      },
    },
    errors: [
      VALIDATION_FAILED,
      errorCase(409, 'idempotency_key_reused', 'Idempotency-Key was already used with a different request body'),
      DUTCH_NOT_AVAILABLE,
    ],
  }),
  pollQuote: defineRoute({
    method: 'get',
    path: '/api/quote/:id',
    summary: 'Poll a quote and its offers (best first)',
    tags: ['quotes'],
    auth: { streamToken: true },
    cache: 'no-store',
    request: {
      params: idParams,
      // A repeated ?stream_token= is no token from the query: the header may still carry one.
      query: z.object({ stream_token: z.string().optional().catch(undefined) }),
      headers: z.object({ 'x-quote-stream-token': z.string().optional() }),
    },
    responses: {
      200: { description: 'The quote and its offers.', schema: z.strictObject({ quote: takerQuoteView, offers: z.array(offerView) }) },
    },
    errors: [QUOTE_NOT_FOUND],
  }),
  submitOffer: defineRoute({
    method: 'post',
    path: '/api/quote/:id',
    summary: 'Post a signed package offer (makers)',
    tags: ['quotes'],
    auth: { action: 'post_maker_offer' },
    cache: 'no-store',
    request: {
      params: idParams,
      // The service's own parser, documented as it is: shared/quotes/offer-request.ts.
      body: offerRequestDocument,
      bodyCheck: 'service',
      examples: { butterfly: { summary: 'A package offer on the butterfly example', value: PACKAGE_OFFER_EXAMPLE } },
    },
    responses: { 201: { description: 'The stored offer; the taker hears it on rfq_stream.', schema: z.strictObject({ offer: offerView }) } },
    errors: [
      VALIDATION_FAILED,
      QUOTE_NOT_FOUND,
      errorCase(403, 'maker_mismatch', 'maker 0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC is not the authenticated maker 0x90F79bf6EB2c4f870365E785982E1f101E93b906'),
      errorCase(409, 'quote_expired', 'quote 0b6f3c1e-2d4a-4f5e-8a9b-0c1d2e3f4a5b is expired; offers are closed'),
      errorCase(409, 'quote_filled', 'quote 0b6f3c1e-2d4a-4f5e-8a9b-0c1d2e3f4a5b is filled; offers are closed'),
      errorCase(409, 'quote_cancelled', 'quote 0b6f3c1e-2d4a-4f5e-8a9b-0c1d2e3f4a5b is cancelled; offers are closed'),
      errorCase(409, 'nonce_used', 'nonce 1 was already used by 0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC on chain 31337'),
      errorCase(503, 'network_unavailable', 'chain 31337 has no mothership configured'),
    ],
  }),
  submitDutchBid: defineRoute({
    method: 'post',
    path: '/api/quote/:id/offer',
    summary: 'Dutch both-side bid (not available yet: 501)',
    tags: ['quotes'],
    auth: { action: 'post_maker_offer' },
    cache: 'no-store',
    // The handler refuses every bid until the Dutch flow exists; the body documents what it will take.
    request: { params: idParams, body: dutchBidBody, bodyCheck: 'handler' },
    responses: {},
    errors: [errorCase(501, 'dutch_not_available', 'Dutch bids need a Dutch quote, and the Dutch flow is not available yet')],
  }),
};
