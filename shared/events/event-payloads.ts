import { z } from 'zod';
import type { EventPayload } from '../platform/events';

/**
 * The payloads topics carry (the spec's Events table shows names, not fields). Each schema
 * names only what identifies the event's subject; the services that publish an event own the
 * rest of its shape and may add fields (docs/QUOTES.md), so every schema is loose. The topic
 * table ties events to topics; the schemas type the publishers and describe the payloads to
 * documentation. Every payload reaches clients as `{seq, ...payload}`: `seq` is the socket
 * tier's, never the publisher's.
 */

/** A new options RFQ (filler feed, maker feed, or the taker's own stream); never the raw taker address. */
export const rfqRequestPayload = z.looseObject({ quote_id: z.string(), chain_id: z.number().int() });

/** An offer on a quote (taker stream; a maker's own offers on its maker topic). */
export const rfqOfferPayload = z.looseObject({ quote_id: z.string() });

/** A quote's outcome: filled, expired, cancelled, reopened by a reorg, or a Dutch award. */
export const rfqResultPayload = z.looseObject({ quote_id: z.string() });

/** A maker's own exclusive fill changed state (issued, used on chain, expired): rfq_maker:<maker> only. */
export const exclusiveFillPayload = z.looseObject({ exclusive_fill_id: z.string(), chain_id: z.number().int(), state: z.enum(['active', 'used', 'expired']) });
/** A Dutch award to its winner alone: the fillable payload, whose signed `award` names the winner's `filler`. */
export const dutchAwardPayload = z.looseObject({ quote_id: z.string(), chain_id: z.number().int(), award: z.looseObject({ filler: z.string() }) });
/** A Dutch award whose winner let the exclusive window pass without filling (decided by the indexer from the chain), with the maker's fade status. */
export const dutchFadePayload = z.looseObject({
  quote_id: z.string(),
  chain_id: z.number().int(),
  exclusive_ends_at: z.string(),
  dutch_fades: z.looseObject({ count: z.number().int(), window_seconds: z.number().int(), limit: z.number().int(), blocked_until: z.string().nullable() }),
});

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
export type RfqOfferEvent = PayloadOf<typeof rfqOfferPayload>;
export type RfqResultEvent = PayloadOf<typeof rfqResultPayload>;
export type ExclusiveFillEvent = PayloadOf<typeof exclusiveFillPayload>;
export type DutchAwardEvent = PayloadOf<typeof dutchAwardPayload>;
export type ExploreClobEvent = PayloadOf<typeof exploreClobPayload>;
export type ExploreLoanEvent = PayloadOf<typeof exploreLoanPayload>;
