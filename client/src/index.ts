export { RfqClient, type RfqClientOptions } from './rest-client';
export { ApiError } from './api-error';
export { RfqSocket, type MakerEvents, type TakerEvents, type RfqSocketOptions, type SubscribeOptions, type Subscription, type Handlers } from './rfq-socket';
export { signSiwe, siweMessageFor } from './siwe';
export {
  packageOffer,
  signPackageOffer,
  packageOfferTypedData,
  packageOfferDomain,
  PACKAGE_OFFER_TYPES,
  jsonLegToLeg,
  type OfferTerms,
  type QuotedLeg,
  type PackageOffer,
  type IntentJson,
} from './offers';
export type * from './api.types';
export { networkContract } from './networks';
export {
  orderIntent,
  exclusiveFillMessage,
  orderIntentHash,
  intentDataHash,
  exclusiveFillTypedData,
  ORDER_INTENT_TYPES,
  EXCLUSIVE_FILL_TYPES,
  type OrderIntent,
  type ExclusiveFill,
} from './orders';
export {
  brokeredRequest,
  signDutchRequest,
  dutchFillArgs,
  dutchFillTypedData,
  dutchPremiumAt,
  improvedPremium,
  directionsHash,
  type DutchQuoteRequest,
  type DutchRequestJson,
  type AwardJson,
} from './dutch';
