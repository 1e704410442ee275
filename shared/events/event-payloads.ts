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

/** A Dutch award to its winner alone: the fillable payload plus the private `exclusive_salt`. */
export const dutchAwardPayload = z.looseObject({ quote_id: z.string(), chain_id: z.number().int(), exclusive_salt: z.string() });

/** A snapshot, event or transfer of one CLOB pair, to the explore streams watching it. */
export const exploreClobPayload = z.looseObject({ chain_id: z.number().int(), clob: z.string() });

/** A snapshot or event of the lending markets of a chain. */
export const exploreLoanPayload = z.looseObject({ chain_id: z.number().int() });

/** What a publisher passes for an event of schema `S`: its fields, any further JSON fields, never `seq`. */
export type PayloadOf<S> = (S extends z.ZodType ? z.input<S> : never) & EventPayload;

export type RfqRequestEvent = PayloadOf<typeof rfqRequestPayload>;
export type RfqOfferEvent = PayloadOf<typeof rfqOfferPayload>;
export type RfqResultEvent = PayloadOf<typeof rfqResultPayload>;
export type DutchAwardEvent = PayloadOf<typeof dutchAwardPayload>;
export type ExploreClobEvent = PayloadOf<typeof exploreClobPayload>;
export type ExploreLoanEvent = PayloadOf<typeof exploreLoanPayload>;
