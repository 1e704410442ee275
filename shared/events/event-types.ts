import type { LiveTopicKind } from './topics';

/**
 * The events each topic carries (the spec's Events table) and the payloads' common fields.
 * The spec does not show payload fields, so each payload names only what identifies its
 * subject; the services that publish an event own the rest of its shape and may add fields.
 * Every payload reaches clients as `{seq, ...payload}`: `seq` is the socket tier's, never the
 * publisher's.
 */

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** A JSON object without `seq`. */
export interface EventPayload {
  [key: string]: JsonValue | undefined;
  seq?: never;
}

/** A new options RFQ (filler feed, maker feed, or the taker's own stream); never the raw taker address. */
export interface RfqRequestEvent extends EventPayload {
  quote_id: string;
  chain_id: number;
}

/** An offer on a quote (taker stream; a maker's own offers on its maker topic). */
export interface RfqOfferEvent extends EventPayload {
  quote_id: string;
}

/** A quote's outcome: filled, expired, cancelled, or a Dutch award. */
export interface RfqResultEvent extends EventPayload {
  quote_id: string;
}

export interface ExploreClobEvent extends EventPayload {
  chain_id: number;
  clob: string;
}

export interface ExploreLoanEvent extends EventPayload {
  chain_id: number;
}

/** Event name -> payload, per topic kind. Publishing anything else does not compile. */
export interface TopicEvents {
  quotes_requests: { rfq_request: RfqRequestEvent };
  rfq_maker: { rfq_request: RfqRequestEvent; rfq_offer: RfqOfferEvent; rfq_result: RfqResultEvent };
  rfq_stream: { rfq_request: RfqRequestEvent; rfq_offer: RfqOfferEvent; rfq_result: RfqResultEvent };
  explore_clob_stream: {
    explore_clob_snapshot: ExploreClobEvent;
    explore_clob_event: ExploreClobEvent;
    explore_clob_transfer: ExploreClobEvent;
  };
  explore_loan_stream: { explore_loan_snapshot: ExploreLoanEvent; explore_loan_event: ExploreLoanEvent };
}

export type EventName<K extends LiveTopicKind> = keyof TopicEvents[K] & string;

/** Runtime copy of the table, for checks where types do not reach (job payloads, tests). */
export const TOPIC_EVENT_NAMES: { [K in LiveTopicKind]: readonly EventName<K>[] } = {
  quotes_requests: ['rfq_request'],
  rfq_maker: ['rfq_request', 'rfq_offer', 'rfq_result'],
  rfq_stream: ['rfq_request', 'rfq_offer', 'rfq_result'],
  explore_clob_stream: ['explore_clob_snapshot', 'explore_clob_event', 'explore_clob_transfer'],
  explore_loan_stream: ['explore_loan_snapshot', 'explore_loan_event'],
};

/** One stored or live event as the socket tier hands it on: `data` is the JSON text `{seq, ...payload}`. */
export interface DeliveredEvent {
  seq: number;
  event: string;
  data: string;
  /** Unix ms when it was published (Redis clock). */
  publishedAt: number;
}
