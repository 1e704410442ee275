import { z } from 'zod';
import type { EventPayload } from '../platform/event-bus';
// The quote domain's payloads have their one home in its wire modules (which import nothing of the domains').
import {
  dutchAwardEventWire,
  dutchBidEventWire,
  dutchFadeEventWire,
  rfqOfferTakerWire,
  rfqRequestMakerWire,
  rfqRequestTakerWire,
} from '../../wire/src/dutch.wire';
import { rfqOfferMakerWire, rfqResultMakerWire, rfqResultTakerWire } from '../../wire/src/quote.wire';
import { EXCLUSIVE_FILL_STATES, exclusiveFillEventWire } from '../../wire/src/order.wire';

/**
 * The payloads topics carry (the spec's Events table shows names, not fields). The quote
 * domain's payloads are declared in full in wire/src/quote.wire.ts and
 * wire/src/dutch.wire.ts (the views are typed from the same schemas); the others name what
 * identifies the event's subject. Every schema is loose (a client must accept added fields) but
 * `dutch_award`'s, which is the winner's payload exactly, every field present. The topic
 * table ties events to topics; the schemas type the publishers and describe the payloads to
 * documentation. Every payload reaches clients as `{seq, ...payload}`: `seq` is the socket
 * tier's, never the publisher's.
 */

/** A new options RFQ on the maker feed or a maker's topic: never the taker's address, referrer or salt. */
export const rfqRequestPayload = rfqRequestMakerWire;
/** A new options RFQ on the taker's own stream: the whole quote. */
export const rfqRequestTakerPayload = rfqRequestTakerWire;

/** A maker's own offer, on its maker topic. */
export const rfqOfferPayload = rfqOfferMakerWire;
/** An offer on the taker's quote, or on a Dutch quote a bid's side for the taker. */
export const rfqOfferTakerPayload = rfqOfferTakerWire;

/** A quote's outcome as a maker that offered learns it: filled, expired, cancelled, or reopened by a reorg. */
export const rfqResultPayload = rfqResultMakerWire;
/** A quote's outcome as the taker learns it (with the settling transaction). */
export const rfqResultTakerPayload = rfqResultTakerWire;

/** A maker's own exclusive fill changed state (issued, used on chain, expired): rfq_maker:<maker> only. */
export const exclusiveFillPayload = z.looseObject({
  ...exclusiveFillEventWire.partial().shape,
  exclusive_fill_id: z.string(),
  chain_id: z.number().int(),
  state: z.enum(EXCLUSIVE_FILL_STATES),
});
/** A maker's own Dutch bid as stored (the answer of its POST), each version once: rfq_maker:<maker> only, never the taker. */
export const dutchBidPayload = dutchBidEventWire;
/** A Dutch award to its winner alone, documented field by field as sent: the fillable payload, whose signed `award` names the winner's `filler`. */
export const dutchAwardPayload = dutchAwardEventWire;
/** A Dutch award whose winner let the exclusive window pass without filling (decided by the indexer from the chain), with the maker's fade status. */
export const dutchFadePayload = dutchFadeEventWire;

/** A snapshot, event or transfer of one CLOB pair, to the explore streams watching it. */
export const exploreClobPayload = z.looseObject({ chain_id: z.number().int(), clob: z.string() });

/**
 * Explore CLOB stream (docs/EXPLORE.md, "Live stream"): the book and latest activity with the
 * block they reflect; sent when the stream opens (`reason: join`) and after a reorg (`reorg`).
 */
export const exploreClobSnapshotPayload = exploreClobPayload.extend({
  reason: z.enum(['join', 'reorg']),
  block: z.looseObject({ number: z.number().int() }),
});

/** An order placed, filled or cancelled (`event` is the log's name), or `event: "reorg"` before a fresh snapshot. */
export const exploreClobEventPayload = exploreClobPayload.extend({ event: z.string() });

/** An ERC-6909 transfer of one of the CLOB's series (sender zero: a mint). */
export const exploreClobTransferPayload = exploreClobPayload.extend({ option_id: z.string() });

/** A snapshot or event of the lending markets of a chain. */
export const exploreLoanPayload = z.looseObject({ chain_id: z.number().int() });

/** What a publisher passes for an event of schema `S`: its fields, any further JSON fields, never `seq`. */
export type PayloadOf<S> = (S extends z.ZodType ? z.input<S> : never) & EventPayload;

export type RfqRequestEvent = PayloadOf<typeof rfqRequestPayload>;
export type RfqRequestTakerEvent = PayloadOf<typeof rfqRequestTakerPayload>;
export type RfqOfferEvent = PayloadOf<typeof rfqOfferPayload>;
export type RfqResultEvent = PayloadOf<typeof rfqResultPayload>;
export type ExclusiveFillEvent = PayloadOf<typeof exclusiveFillPayload>;
export type DutchAwardEvent = PayloadOf<typeof dutchAwardPayload>;
export type DutchBidEvent = PayloadOf<typeof dutchBidPayload>;
export type ExploreClobEvent = PayloadOf<typeof exploreClobPayload>;
export type ExploreLoanEvent = PayloadOf<typeof exploreLoanPayload>;
