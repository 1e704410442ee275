export { TopicEventPublisher, MAX_EVENT_PAYLOAD_BYTES } from './topic-event-publisher';
export type { PublishOptions, PublishResult, EventPublisherConfig, TopicEventPublisherDeps } from './topic-event-publisher';
export { EventHistory } from './event-history';
export type { HistoryRead, EventHistoryConfig } from './event-history';
export { EventKeys, parseLiveMessage, taggedTopic } from './event-keys';
export type { TopicKey, TopicRef, TopicRules, JsonValue, EventPayload, EventCatalog, DeliveredEvent } from './event.types';
export { RelayAnchors, reflectedBy, withSeq } from './relay-anchor';
export type { RelayAnchor } from './relay-anchor';
