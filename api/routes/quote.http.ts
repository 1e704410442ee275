import { z } from 'zod';
import { dutchQuoteRequestDocument } from '../../shared/dutch';
import { offerRequestDocument, quoteRequestDocument } from '../../shared/quotes';
import { defineRoute } from '../http/route-spec';
import { errorCase, FILL_BOND_ERRORS, VALIDATION_FAILED } from '../http/error-cases';
import { createdQuoteAnswer, dutchBidBody, quotePollAnswer, submittedDutchBidAnswer, submittedOfferAnswer } from '../../wire/src/quote-answers';
import { offerDryRunWire, QUOTE_STATES } from '../../wire/src/quote.wire';
import type { PackageOfferBody, QuoteRequestBody } from '../../wire/src/quote-requests';

/** Every body the wire package types for a client is one the parsers' documents accept (checked by tsc). */
type Accepts<Schema extends z.ZodType, Body extends z.input<Schema>> = Body;
export type ClientBodiesAccepted = [Accepts<typeof quoteRequestDocument, QuoteRequestBody>, Accepts<typeof offerRequestDocument, PackageOfferBody>];

const QUOTE_NOT_FOUND = errorCase(404, 'quote_not_found', 'quote 0b6f3c1e-2d4a-4f5e-8a9b-0c1d2e3f4a5b not found');

/**
 * An offer's or a bid's 409 on a quote no longer open: `quote_<state>` for every state a quote
 * closes into (QUOTE_STATES but open), as offer.service.ts and dutch.service.ts answer it.
 */
const closedQuoteErrors = (closed: 'offers' | 'bids') =>
  QUOTE_STATES.filter((s) => s !== 'open').map((s) => errorCase(409, `quote_${s}`, `quote 0b6f3c1e-2d4a-4f5e-8a9b-0c1d2e3f4a5b is ${s}; ${closed} are closed`));

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
export const quoteSpecs = {
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
        'idempotency-key': z.string().optional().meta({
          description:
            '1-255 printable ASCII characters, at least 32 without a bearer (a UUIDv4, or 16+ random bytes in hex: a replay returns the stream token); a retry with the same key and body replays the answer.',
        }),
      }),
      // The service's own parser, documented as it is: shared/quotes/quote-request.ts.
      body: z.union([quoteRequestDocument, dutchQuoteRequestDocument]).meta({
        description: 'A standard RFQ, or a Dutch auction (`offer_formats: "dutch_only"` or a present `dutch_request`): each parsed by its own schema.',
      }),
      bodyCheck: 'service',
      examples: { butterfly: { summary: 'Buy a call butterfly (directions [1, 0, 1])', value: BUTTERFLY_EXAMPLE } },
    },
    responses: {
      201: {
        description: 'The quote, its private stream token and the topic to join. Header Idempotent-Replayed: true on a replay.',
        schema: createdQuoteAnswer,
      },
    },
    errors: [
      VALIDATION_FAILED,
      errorCase(
        403,
        'taker_unfillable_limit',
        "taker 0x70997970C51812dc3A010C7d01b50e0d17dc79C8 made 3 Dutch exclusive windows impossible to fill within 86400 seconds (the premium balance or allowance to the mothership was short of the winner's price when the window ended): DUTCH_TAKER_UNFILLABLE_LIMIT is 3; new Dutch auctions are refused until 2026-11-24T20:00:00.000Z",
      ),
      errorCase(409, 'idempotency_key_reused', 'Idempotency-Key was already used with a different request body'),
      errorCase(503, 'network_unavailable', 'chain 31337 has no mothership configured'),
      errorCase(503, 'rpc_unavailable', "cannot ask the request's fill authority: chain 31337 RPC unreachable"),
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
      200: {
        description: "The quote and its offers; a Dutch quote also lists its bids (the taker's side of each), best first.",
        schema: quotePollAnswer,
      },
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
    responses: { 201: { description: 'The stored offer; the taker hears it on rfq_stream.', schema: submittedOfferAnswer } },
    errors: [
      VALIDATION_FAILED,
      QUOTE_NOT_FOUND,
      errorCase(
        403,
        'maker_mismatch',
        'maker 0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC is not the authenticated maker 0x90F79bf6EB2c4f870365E785982E1f101E93b906',
      ),
      ...closedQuoteErrors('offers'),
      errorCase(
        409,
        'dutch_quote',
        'quote 0b6f3c1e-2d4a-4f5e-8a9b-0c1d2e3f4a5b is a Dutch auction: bid with POST /api/quote/0b6f3c1e-2d4a-4f5e-8a9b-0c1d2e3f4a5b/offer',
      ),
      errorCase(409, 'nonce_used', 'nonce 1 was already used by 0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC on chain 31337'),
      errorCase(503, 'network_unavailable', 'chain 31337 has no mothership configured'),
    ],
  }),
  submitDutchBid: defineRoute({
    method: 'post',
    path: '/api/quote/:id/offer',
    summary: 'Dutch both-side bid (makers)',
    description:
      'While the quote competes: an improvement over the curve price for each side the taker may be on (the side is hidden until the award). ' +
      "A later bid by the same maker replaces its earlier one. The best bid for the taker's real side wins (ties: the earlier bid); docs/DUTCH.md.",
    tags: ['quotes'],
    auth: { action: 'post_maker_offer' },
    cache: 'no-store',
    request: {
      params: idParams,
      // Parsed by the service (DutchService.checkBid), so the dry-run runs the same parse.
      body: dutchBidBody,
      bodyCheck: 'service',
      examples: {
        bid: { summary: 'A both-side bid', value: { buy_override_bps: 25, sell_override_bps: 10 } },
        filler: {
          summary: 'A bid filled from another wallet',
          value: { buy_override_bps: 25, sell_override_bps: 10, filler: '0x90F79bf6EB2c4f870365E785982E1f101E93b906' },
        },
      },
    },
    responses: { 201: { description: 'The stored bid; the taker hears its side on rfq_stream.', schema: submittedDutchBidAnswer } },
    errors: [
      VALIDATION_FAILED,
      QUOTE_NOT_FOUND,
      errorCase(
        403,
        'filler_not_allowed',
        "the request's fill authority 0x610178dA211FEF7D417bC0e6FeD39F05609AD788 does not allow 0x90F79bf6EB2c4f870365E785982E1f101E93b906 to fill it (IFillAuthority.isAllowedFiller): bid from an allowed wallet, or name an allowed filler",
      ),
      errorCase(403, 'maker_key_unverified', 'maker key 4c1f0c9e-8a55-4b0e-9d3a-2f0b5c1e7a10 is unverified: its bot wallet has not proved it consents'),
      errorCase(
        403,
        'filler_consent_required',
        'filler 0x90F79bf6EB2c4f870365E785982E1f101E93b906 is neither your wallet nor a wallet of your organization: it must consent with filler_signature',
      ),
      errorCase(403, 'filler_signature_mismatch', "filler_signature is not 0x90F79bf6EB2c4f870365E785982E1f101E93b906's personal_sign of the filler consent"),
      errorCase(503, 'rpc_unavailable', "cannot ask the request's fill authority: chain 31337 RPC unreachable"),
      ...FILL_BOND_ERRORS,
      errorCase(
        403,
        'fade_limit_reserved',
        'this organization has 1 fades within 86400 seconds and 2 open exclusive rights (awards not yet decided, bids on competing auctions, live exclusive fills); one more could bring it above the fade limit 3: wait until a right is decided',
      ),
      errorCase(
        403,
        'maker_faded',
        "3 Dutch awards of this maker's organization let their exclusive window pass without a fill within 86400 seconds; bids are refused until 2026-11-23T21:00:00.000Z",
      ),
      errorCase(
        409,
        'not_dutch',
        'quote 0b6f3c1e-2d4a-4f5e-8a9b-0c1d2e3f4a5b is not a Dutch auction: post a signed package offer to POST /api/quote/0b6f3c1e-2d4a-4f5e-8a9b-0c1d2e3f4a5b',
      ),
      errorCase(409, 'competition_over', 'the competition of quote 0b6f3c1e-2d4a-4f5e-8a9b-0c1d2e3f4a5b ended at 2026-11-23T20:00:00.000Z; bids are closed'),
      ...closedQuoteErrors('bids'),
    ],
  }),
  submitOfferDryRun: defineRoute({
    method: 'post',
    path: '/api/quote/:id/dry-run',
    summary: 'Dry-run a package offer or a Dutch bid (makers)',
    description:
      'Takes the body the real route takes for this quote (a signed package offer on a standard quote, as POST /api/quote/:id; a both-side bid on a Dutch ' +
      'quote, as POST /api/quote/:id/offer) and runs every check that route runs, without storing, publishing or spending the nonce. Answers 200 with what ' +
      'the real route would answer: `would: "accept"` and status 201, or `would: "refuse"` with its status and exact error body. Its own rate-limit ' +
      'budget (DRY_RUN_RATE_LIMIT_PER_IP, DRY_RUN_RATE_LIMIT_PER_CREDENTIAL), not the write budget; docs/QUOTES.md.',
    tags: ['quotes'],
    auth: { action: 'post_maker_offer' },
    cache: 'no-store',
    request: {
      params: idParams,
      // Parsed by the checks of the real route (OfferService.check, DutchService.checkBid): a bad body is a verdict, not a 400.
      body: z.union([offerRequestDocument, dutchBidBody]).meta({
        description: "The body of the quote's real offer route: a signed package offer (standard quote) or a both-side bid (Dutch quote).",
      }),
      bodyCheck: 'service',
      examples: {
        offer: { summary: 'A package offer on the butterfly example', value: PACKAGE_OFFER_EXAMPLE },
        bid: { summary: 'A both-side bid on a Dutch quote', value: { buy_override_bps: 25, sell_override_bps: 10 } },
      },
    },
    responses: {
      200: {
        description: 'What the real route would answer, and nothing done.',
        schema: offerDryRunWire,
        examples: {
          accept: {
            summary: 'The real route would store it',
            value: { dry_run: true, quote_id: '0b6f3c1e-2d4a-4f5e-8a9b-0c1d2e3f4a5b', kind: 'package_offer', would: 'accept', status: 201, error: null },
          },
          refuse: {
            summary: 'The real route would refuse it: a nonce already used',
            value: {
              dry_run: true,
              quote_id: '0b6f3c1e-2d4a-4f5e-8a9b-0c1d2e3f4a5b',
              kind: 'package_offer',
              would: 'refuse',
              status: 409,
              error: {
                error: 'nonce 1 was already used by 0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC on chain 31337',
                code: 'nonce_used',
                details: [{ path: 'nonce', message: 'already used: sign a new offer with a fresh nonce' }],
                request_id: '5f0d2c7e-8a61-4d1b-9b1e-3c2a7d9e4f10',
              },
            },
          },
        },
      },
    },
    errors: [QUOTE_NOT_FOUND],
  }),
};
