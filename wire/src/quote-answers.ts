import { z } from 'zod';
import { zeroAddress } from 'viem';
import { makerBidWire, MAX_BID_BPS, quoteBodyWire, takerBidWire } from './dutch.wire';
import { offerWire } from './quote.wire';
import { evmAddress } from './validation';

/** The answers of the quote routes, and the Dutch bid body (the quote and offer bodies are parsed by the server's own parsers). */

/** POST /api/quote/:id/offer: a Dutch both-side bid, checked by its route. */
export const dutchBidBody = z.strictObject({
  buy_override_bps: z
    .number()
    .int()
    .min(0)
    .max(MAX_BID_BPS)
    .meta({ description: `Improvement over the curve price when the taker buys the package as shown, in basis points (0 to ${MAX_BID_BPS}).` }),
  sell_override_bps: z
    .number()
    .int()
    .min(0)
    .max(MAX_BID_BPS)
    .meta({ description: `Improvement over the curve price when the taker sells it, in basis points (0 to ${MAX_BID_BPS}).` }),
  filler: evmAddress
    .refine((a) => a !== zeroAddress, 'must not be the zero address: leave filler out to fill from your own wallet')
    .optional()
    .meta({
      description:
        'The address that will call executeDutchFill if this bid wins (default: your own wallet). The signed award names it, and only it gets the winning price during the exclusive window. ' +
        'A filler that is neither your wallet nor a wallet of your organization (a member, or the bot wallet of one of its keys) must consent: see filler_signature. ' +
        'With a fill authority on the request (required_authority), both you and the filler must be allowed by it (else 403 filler_not_allowed).',
    }),
  filler_signature: z
    .string({ message: 'must be a hex signature' })
    .regex(/^0x([0-9a-fA-F]{2}){65}$/, 'must be a 65-byte hex signature')
    .transform((v) => v as `0x${string}`)
    .optional()
    .meta({
      description:
        'The filler\'s personal_sign of "Service Dutch filler consent\\n\\nQuote: <quote id, lower case>\\nMaker: <your wallet, checksummed>\\nFiller: <filler, checksummed>". ' +
        'Needed only when filler is neither your wallet nor a wallet of your organization (else 403 filler_consent_required).',
    }),
});

/** POST /api/quote: the quote, its private stream token and the topic to join. */
export const createdQuoteAnswer = z.strictObject({
  quote: quoteBodyWire,
  stream_token: z.string().meta({ description: 'Private: polls the quote and joins its stream.' }),
  topic: z.string().meta({ description: '`rfq_stream:<stream_token>`' }),
});

/** GET /api/quote/:id. */
export const quotePollAnswer = z.strictObject({ quote: quoteBodyWire, offers: z.array(offerWire), bids: z.array(takerBidWire).optional() });
/** POST /api/quote/:id. */
export const submittedOfferAnswer = z.strictObject({ offer: offerWire });
/** POST /api/quote/:id/offer. */
export const submittedDutchBidAnswer = z.strictObject({ bid: makerBidWire });
