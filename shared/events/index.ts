export {
  LIVE_TOPIC_KINDS,
  PLANNED_TOPIC_KINDS,
  TOKEN_TOPIC_STREAM_KIND,
  topics,
  parseTopic,
  topicRefOf,
  tokenTopicKey,
  streamTokenOf,
  quotesRequestsTopic,
  rfqMakerTopic,
  rfqStreamTopic,
  exploreClobStreamTopic,
  exploreLoanStreamTopic,
  marginRequestsTopic,
  marginLenderTopic,
  marginRfqStreamTopic,
} from './topics';
export type { TopicKind, LiveTopicKind, PlannedTopicKind, TokenTopicKind, TopicKey, TopicRef, ParsedTopic } from './topics';
export { TOPIC_EVENT_NAMES } from './event-types';
export type {
  JsonValue,
  EventPayload,
  EventName,
  TopicEvents,
  RfqRequestEvent,
  RfqOfferEvent,
  RfqResultEvent,
  ExploreClobEvent,
  ExploreLoanEvent,
  DeliveredEvent,
} from './event-types';
export { EventPublisher, MAX_EVENT_PAYLOAD_BYTES } from './event-publisher';
export type { PublishOptions, PublishResult, EventPublisherConfig } from './event-publisher';
export { EventHistory } from './event-history';
export type { HistoryRead, EventHistoryConfig } from './event-history';
export { EventKeys, parseLiveMessage } from './event-keys';
export { PubsubRegistrations, PUBSUB_TIERS, dropKeyRegistrations } from './pubsub-registrations';
export type { PubsubTier, RevokedAmong } from './pubsub-registrations';
export { SOCKET_PATH, WEBSOCKET_PATH } from './socket-paths';
