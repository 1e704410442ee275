export * from './constants';
export {
  intentListSchema,
  optionTypeSchema,
  structureSchema,
  OPTION_TYPE_SPELLINGS,
  STRUCTURE_SPELLINGS,
  parseIntents,
  intentToJson,
  intentToLeg,
  jsonLegToLeg,
  legToIntent,
} from './intents';
export type { Intent, IntentJson, Leg } from './intents';
export { takerAddressHash, directionsHash, checkDirections } from './taker-hash';
export * from './typed-data';
export { parseDutchRequest, dutchRequestField, dutchRequestToJson } from './dutch-request';
export type { DutchRequestJson } from './dutch-request';
export { ORDER_INTENT_TYPES, orderIntentHash, intentDataHash, orderIntentFromJson } from './order-intent';
export type { OrderIntent, OrderIntentJson } from './order-intent';
export { BPS, dutchPremiumAt, improvedPremium, curveFavoursTakerFirst } from './dutch-curve';
