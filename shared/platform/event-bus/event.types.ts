import type { StreamKind } from '../stream-tokens';

/**
 * The shapes the event infrastructure moves around, whatever the topics are. Which topics exist,
 * who may join them and what they carry is a domain's table (shared/events/topic-table.ts);
 * this layer only needs a topic's kind, its storage key, and the answers of `TopicRules`.
 */

/** Where a topic's events are stored and published: never contains a secret. */
export type TopicKey = string & { readonly __topicKey: unique symbol };

/** A topic that events can be published to: its kind (which fixes its event names) and key. */
export interface TopicRef<K extends string = string> {
  kind: K;
  key: TopicKey;
  /**
   * A token-named topic's token end, unix ms, when the token keeps no record to read it from (a
   * signed stream token: its quote row says when it ends). The topic's keys live no longer than
   * this plus SOCKET_TOKEN_TOPIC_GRACE_SECONDS. Absent: read from the token's record.
   */
  tokenEndsAt?: number;
}

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/**
 * A JSON object without `seq`: every payload reaches clients as `{seq, ...payload}`, and `seq`
 * is the event log's, never the publisher's.
 */
export interface EventPayload {
  [key: string]: JsonValue | undefined;
  seq?: never;
}

/** Event name -> payload, per topic kind: what a publisher may send where. */
export type EventCatalog = { [kind: string]: { [event: string]: EventPayload } };

/**
 * What the publisher asks of the topic table it serves, so that it needs to know no topic
 * itself. The domain's table implements it.
 */
export interface TopicRules {
  /** True when topics of this kind carry this event. */
  carries(kind: string, event: string): boolean;
  /**
   * The stream token a topic is named by (its kind and sha-256), or null for a shared topic.
   * A token-named topic is single-use, so its keys live no longer than its token.
   */
  streamTokenOf(topic: TopicRef): { kind: StreamKind; hash: string } | null;
}

/** One stored or live event as the socket tier hands it on: `data` is the JSON text `{seq, ...payload}`. */
export interface DeliveredEvent {
  seq: number;
  event: string;
  data: string;
  /** Unix ms when it was published (Redis clock). */
  publishedAt: number;
  /** The publishing span's W3C traceparent, on a live message published inside one; never sent to a client. */
  traceparent?: string;
}
