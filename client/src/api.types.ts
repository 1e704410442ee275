import type { Abi } from 'viem';
import type { z } from 'zod';
import type {
  contractAbisAnswer,
  createdQuoteAnswer,
  defaultPremiumTokensAnswer,
  delegateAnswer,
  delegateBody,
  dutchBidBody,
  errorBodySchema,
  exclusiveFillCreateBody,
  exclusiveFillWire,
  loginAnswer,
  loginNonceAnswer,
  makerKeyList,
  makerResultWire,
  makerQuoteWire,
  networksAnswer,
  newMakerKey,
  offerDryRunWire,
  offerWire,
  orderCreateBody,
  orderWire,
  paymentTokensAnswer,
  pubsubRegistered,
  quotePollAnswer,
  removedMakerKey,
  rfqOfferTakerWire,
  rfqRequestMakerWire,
  rfqRequestTakerWire,
  rfqResultMakerWire,
  rfqResultTakerWire,
  sessionView,
  submittedDutchBidAnswer,
  submittedOfferAnswer,
  takerQuoteWire,
  takerResultWire,
  addMakerKeySchema,
  PackageOfferBody,
  QuoteRequestBody,
} from '@options-rfq/wire';

/*
 * The client's types are the schemas the server answers and publishes with, from the wire
 * package (@options-rfq/wire), imported type-only: a schema that changes changes the client's
 * type in the same commit, and no schema code ships in the client bundle (type imports are erased).
 */

/** The error body (docs/API.md, "Conventions of every answer"): {error, code, details?, request_id}. */
export type ErrorBody = z.output<typeof errorBodySchema>;

export type LoginNonce = z.output<typeof loginNonceAnswer>;
export type LoginResult = z.output<typeof loginAnswer>;
export type Session = z.output<typeof sessionView>;

export type NetworksResult = z.output<typeof networksAnswer>;
export type Network = NetworksResult['networks'][number];
export type PaymentTokensResult = z.output<typeof paymentTokensAnswer>;
export type DefaultPremiumTokensResult = z.output<typeof defaultPremiumTokensAnswer>;
/** GET /api/abis, typed as viem's `Abi` (what the server serves are viem's own parsed ABIs), ready for readContract / writeContract. */
export type ContractAbis = { abis: Record<keyof z.output<typeof contractAbisAnswer>['abis'], Abi> };

export type QuoteRequest = QuoteRequestBody;
export type CreatedQuote = z.output<typeof createdQuoteAnswer>;
export type TakerQuote = CreatedQuote['quote'];
export type QuotePoll = z.output<typeof quotePollAnswer>;
export type Offer = QuotePoll['offers'][number];
export type PackageOfferRequest = PackageOfferBody;
export type SubmittedOffer = z.output<typeof submittedOfferAnswer>;
export type DutchBidRequest = z.input<typeof dutchBidBody>;
export type SubmittedDutchBid = z.output<typeof submittedDutchBidAnswer>;
export type DutchBid = NonNullable<QuotePoll['bids']>[number];
/** POST /api/quote/:id/dry-run: what the real offer or bid would be answered, nothing stored. */
export type OfferDryRun = z.output<typeof offerDryRunWire>;

export type OrderRequest = z.input<typeof orderCreateBody>;
export type OrderView = z.output<typeof orderWire>;
export type OrderList = { items: OrderView[]; next_cursor: string | null };
export type ExclusiveFillRequest = z.input<typeof exclusiveFillCreateBody>;
export type CreatedExclusiveFill = z.output<typeof exclusiveFillWire>;

export type PubsubRegistration = Omit<z.output<ReturnType<typeof pubsubRegistered>>, 'tier'> & { tier: 'premium' };

export type MakerKeyList = z.output<typeof makerKeyList>;
export type AddMakerKeyRequest = z.input<typeof addMakerKeySchema>;
export type NewMakerKey = z.output<typeof newMakerKey>;
export type RemovedMakerKey = z.output<typeof removedMakerKey>;

export type MintDelegateRequest = z.input<typeof delegateBody>;
export type Delegate = z.output<typeof delegateAnswer>;

/** Every pushed event carries the topic's `seq` (docs/SOCKETS.md, "Ordering and replay"). */
export type Sequenced<T> = T & { seq: number };
/*
 * The topic table's payload schemas (quote.wire.ts, dutch.wire.ts of the wire package)
 * are loose unions of every form an event takes; the event types are the exact views the quote
 * services publish (typed from the same wire schemas), checked against the topic's schema here.
 */
type Publishes<View, Schema extends z.ZodType> = View extends z.output<Schema> ? Sequenced<View> : never;

/** rfq_request on the maker feed and a maker's own topic: never the taker's identity. */
export type MakerRfqRequest = Publishes<z.output<typeof makerQuoteWire>, typeof rfqRequestMakerWire>;
/** rfq_request on the taker's own stream: the full quote. */
export type TakerRfqRequest = Publishes<z.output<typeof takerQuoteWire>, typeof rfqRequestTakerWire>;
export type RfqOfferEvent = Publishes<z.output<typeof offerWire>, typeof rfqOfferTakerWire>;
export type MakerRfqResult = Publishes<z.output<typeof makerResultWire>, typeof rfqResultMakerWire>;
export type TakerRfqResult = Publishes<z.output<typeof takerResultWire>, typeof rfqResultTakerWire>;
