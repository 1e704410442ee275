import type { z } from 'zod';
import type { errorBodySchema } from '../../api/contract/error-cases';
import type { identityContracts } from '../../api/routes/identity.contract';
import type { makerKeysContracts } from '../../api/routes/maker-keys.contract';
import type { ordersContracts } from '../../api/routes/orders.contract';
import type { publicContracts } from '../../api/routes/public.contract';
import type { pubsubContracts } from '../../api/routes/pubsub.contract';
import type { quoteContracts } from '../../api/routes/quote.contract';
import type { takerContracts } from '../../api/routes/taker.contract';
import type {
  rfqOfferTakerPayload,
  rfqRequestPayload,
  rfqRequestTakerPayload,
  rfqResultPayload,
  rfqResultTakerPayload,
} from '../../shared/events/event-payloads';
import type { makerResultView, MakerQuoteView, OfferView, takerResultView, TakerQuoteView } from '../../shared/quotes/quote-views';

/*
 * The client's types are the server's own route contracts (api/routes/*.contract.ts) and event
 * schemas, imported type-only: a route that changes its schema changes the client's type in the
 * same commit, and no schema code ships in the client bundle (type imports are erased).
 */

type Responses<C> = C extends { responses: infer R } ? R : never;
type SchemaOut<S> = S extends { schema: infer Z extends z.ZodType } ? z.output<Z> : never;

/** The success body of a route contract (the union over its success statuses). */
export type OkBody<C> = { [K in keyof Responses<C>]: SchemaOut<Responses<C>[K]> }[keyof Responses<C>];
/** What a route contract accepts as its body (the input side: strings or numbers where both parse). */
export type RequestBody<C> = C extends { request: { body: infer B extends z.ZodType } } ? z.input<B> : never;

/** The error body (docs/API.md, "Conventions of every answer"): {error, code, details?, request_id}. */
export type ErrorBody = z.output<typeof errorBodySchema>;

export type LoginNonce = OkBody<(typeof identityContracts)['getLoginNonce']>;
export type LoginResult = OkBody<(typeof identityContracts)['login']>;
export type Session = OkBody<(typeof identityContracts)['getSession']>;

export type Network = OkBody<(typeof publicContracts)['listNetworks']>['networks'][number];
export type NetworksResult = OkBody<(typeof publicContracts)['listNetworks']>;
export type PaymentTokensResult = OkBody<(typeof publicContracts)['listPaymentTokens']>;
export type DefaultPremiumTokensResult = OkBody<(typeof publicContracts)['listDefaultPremiumTokens']>;

export type QuoteRequest = RequestBody<(typeof quoteContracts)['createQuote']>;
export type CreatedQuote = OkBody<(typeof quoteContracts)['createQuote']>;
export type TakerQuote = CreatedQuote['quote'];
export type QuotePoll = OkBody<(typeof quoteContracts)['pollQuote']>;
export type Offer = QuotePoll['offers'][number];
export type PackageOfferRequest = RequestBody<(typeof quoteContracts)['submitOffer']>;
export type SubmittedOffer = OkBody<(typeof quoteContracts)['submitOffer']>;
export type DutchBidRequest = RequestBody<(typeof quoteContracts)['submitDutchBid']>;
export type SubmittedDutchBid = OkBody<(typeof quoteContracts)['submitDutchBid']>;
export type DutchBid = NonNullable<QuotePoll['bids']>[number];

export type OrderRequest = RequestBody<(typeof ordersContracts)['createOrder']>;
export type OrderView = OkBody<(typeof ordersContracts)['createOrder']>;
export type OrderList = OkBody<(typeof ordersContracts)['listOrders']>;
export type ExclusiveFillRequest = RequestBody<(typeof ordersContracts)['createExclusiveFill']>;
export type CreatedExclusiveFill = OkBody<(typeof ordersContracts)['createExclusiveFill']>;

export type PubsubRegistration = OkBody<(typeof pubsubContracts)['registerPremium']>;

export type MakerKeyList = OkBody<(typeof makerKeysContracts)['listMakerKeys']>;
export type AddMakerKeyRequest = RequestBody<(typeof makerKeysContracts)['addMakerKey']>;
export type NewMakerKey = OkBody<(typeof makerKeysContracts)['addMakerKey']>;
export type RemovedMakerKey = OkBody<(typeof makerKeysContracts)['removeMakerKey']>;

export type MintDelegateRequest = RequestBody<(typeof takerContracts)['mintDelegate']>;
export type Delegate = OkBody<(typeof takerContracts)['mintDelegate']>;

/** Every pushed event carries the topic's `seq` (docs/SOCKETS.md, "Ordering and replay"). */
export type Sequenced<T> = T & { seq: number };
/*
 * The topic table's payload schemas (shared/quotes/quote.wire.ts, shared/dutch/dutch.wire.ts)
 * are loose unions of every form an event takes; the event types are the exact views the quote
 * services publish (typed from the same wire schemas), checked against the topic's schema here.
 */
type Publishes<View, Schema extends z.ZodType> = View extends z.output<Schema> ? Sequenced<View> : never;

/** rfq_request on the maker feed and a maker's own topic: never the taker's identity. */
export type MakerRfqRequest = Publishes<MakerQuoteView, typeof rfqRequestPayload>;
/** rfq_request on the taker's own stream: the full quote. */
export type TakerRfqRequest = Publishes<TakerQuoteView, typeof rfqRequestTakerPayload>;
export type RfqOfferEvent = Publishes<OfferView, typeof rfqOfferTakerPayload>;
export type MakerRfqResult = Publishes<ReturnType<typeof makerResultView>, typeof rfqResultPayload>;
export type TakerRfqResult = Publishes<ReturnType<typeof takerResultView>, typeof rfqResultTakerPayload>;
