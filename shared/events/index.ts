export { TOPIC_TABLE } from './topic-table';
export type { AnyTopicSpec } from './topic-table';
export {
  TOPIC_KINDS,
  LIVE_TOPIC_KINDS,
  PLANNED_TOPIC_KINDS,
  TOPIC_RULES,
  topics,
  topicName,
  topicRef,
  parseTopic,
  topicRefOf,
  tokenTopicKey,
  streamTokenOf,
  replaysFromStart,
  isRelayed,
  authorizeJoin,
  quotesRequestsTopic,
  rfqMakerTopic,
  rfqStreamTopic,
  exploreClobStreamTopic,
  exploreLoanStreamTopic,
  marginRequestsTopic,
  marginLenderTopic,
  marginRfqStreamTopic,
} from './topics';
export type { TopicKind, LiveTopicKind, PlannedTopicKind, TokenTopicKind, ParsedTopic, NameArgOf, HeldOf, TopicEvents, EventName } from './topics';
export { comingSoon, holdsStreamToken, registeredForChain, thatMakerOnly } from './topic-join';
export type { StreamTokenVerifier, BearerResolver, RegistrationLookup, JoinLookups, JoinCredentials, JoinGrant, JoinAttempt, Authorize } from './topic-join';
export {
  rfqRequestPayload,
  rfqRequestTakerPayload,
  rfqOfferPayload,
  rfqOfferTakerPayload,
  rfqResultPayload,
  rfqResultTakerPayload,
  dutchAwardPayload,
  exploreClobPayload,
  exploreClobSnapshotPayload,
  exploreClobEventPayload,
  exploreClobTransferPayload,
  exploreLoanPayload,
} from './event-payloads';
export type {
  PayloadOf,
  RfqRequestEvent,
  RfqRequestTakerEvent,
  RfqOfferEvent,
  RfqResultEvent,
  DutchAwardEvent,
  ExploreClobEvent,
  ExploreLoanEvent,
} from './event-payloads';
export { EventPublisher } from './event-publisher';
// What publishers name when they publish; the machinery itself lives in shared/platform/event-bus.
export type { TopicKey, TopicRef, JsonValue, EventPayload, PublishOptions, PublishResult } from '../platform/event-bus';
export { PubsubRegistrations, PUBSUB_TIERS, dropKeyRegistrations } from './pubsub-registrations';
export type { PubsubTier, RevokedAmong } from './pubsub-registrations';
export { SOCKET_PATH, WEBSOCKET_PATH } from './socket-paths';
