import type { TopicKey, TopicRef, TopicRules } from '../platform/event-bus';
import type { StreamKind } from '../platform/stream-tokens';
import type { PayloadOf } from './event-payloads';
import type { Authorize, JoinCredentials, JoinGrant, JoinLookups } from './topic-join';
import { tokenHashOfKey } from './topic-names';
import { TOPIC_TABLE, type AnyTopicSpec } from './topic-table';

/**
 * Everything the roles ask about topics, read from the one table (topic-table.ts): kinds,
 * name parsing, publishable refs, join authorisation, replay, and the event catalog. Nothing
 * here names a topic kind.
 */

type Table = typeof TOPIC_TABLE;
export type TopicKind = keyof Table;
export type LiveTopicKind = { [K in TopicKind]: Table[K]['status'] extends 'live' ? K : never }[TopicKind];
export type PlannedTopicKind = Exclude<TopicKind, LiveTopicKind>;
/** Kinds named by a stream token of some kind: single-use topics keyed by the token's hash. */
export type TokenTopicKind = { [K in TopicKind]: Table[K]['streamKind'] extends StreamKind ? K : never }[TopicKind];

/** A client-visible topic name parsed: its kind, canonical key and parameter (chain id, address or token). */
export type ParsedTopic = { [K in TopicKind]: { kind: K } & NonNullable<ReturnType<Table[K]['name']['parse']>> }[TopicKind];
/** What a client-visible name is made from: a chain id, an address, a raw stream token. */
export type NameArgOf<K extends TopicKind> = Parameters<Table[K]['name']['format']>[0];
/** What a publisher holds to address a topic: a chain id, an address, a stream token's sha-256. */
export type HeldOf<K extends TopicKind> = Parameters<Table[K]['name']['key']>[0];

/** Event name -> payload, per live topic kind. Publishing anything else does not compile. */
export type TopicEvents = { [K in LiveTopicKind]: { -readonly [E in keyof Table[K]['events']]: PayloadOf<Table[K]['events'][E]> } };
export type EventName<K extends LiveTopicKind> = keyof TopicEvents[K] & string;

export const TOPIC_KINDS = Object.keys(TOPIC_TABLE) as TopicKind[];
/** Topic kinds a client may join today. */
export const LIVE_TOPIC_KINDS = TOPIC_KINDS.filter((k) => TOPIC_TABLE[k].status === 'live') as LiveTopicKind[];
/** Topic kinds the spec lists as coming soon: recognised, refused on join. */
export const PLANNED_TOPIC_KINDS = TOPIC_KINDS.filter((k) => TOPIC_TABLE[k].status === 'planned') as PlannedTopicKind[];

function specOf(kind: string): AnyTopicSpec | undefined {
  return Object.hasOwn(TOPIC_TABLE, kind) ? TOPIC_TABLE[kind as TopicKind] : undefined;
}

/** A client-visible topic name parsed into its kind, canonical key and parameter; null when it is no topic of ours. */
export function parseTopic(name: string): ParsedTopic | null {
  if (typeof name !== 'string' || name.length > 255) return null;
  for (const kind of TOPIC_KINDS) {
    const parsed = TOPIC_TABLE[kind].name.parse(name);
    if (parsed) return { kind, ...parsed } as ParsedTopic;
  }
  return null;
}

/** The client-visible name of a topic (what API responses and docs show). */
export function topicName<K extends TopicKind>(kind: K, arg: NameArgOf<K>): string {
  return TOPIC_TABLE[kind].name.format(arg as never);
}

/** A publishable ref from what a publisher holds; token topics take the token's sha-256 (hashStreamToken). */
export function topicRef<K extends LiveTopicKind>(kind: K, held: HeldOf<K>): TopicRef<K> {
  return { kind, key: TOPIC_TABLE[kind].name.key(held as never) };
}

/** A publishable ref from a client-visible name (raw tokens are hashed); null for unknown or planned topics. */
export function topicRefOf(name: string): TopicRef<LiveTopicKind> | null {
  const t = parseTopic(name);
  if (!t || TOPIC_TABLE[t.kind].status !== 'live') return null;
  return { kind: t.kind as LiveTopicKind, key: t.key };
}

type CamelCase<S extends string> = S extends `${infer H}_${infer T}` ? `${H}${Capitalize<CamelCase<T>>}` : S;
const camelCase = (s: string) => s.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/**
 * `topics.<kind in camelCase>(held)`: a builder of publishable refs per live kind, made from
 * the table, so a new kind has its builder without another line (`topics.rfqStream(tokenHash)`).
 */
export const topics = Object.fromEntries(LIVE_TOPIC_KINDS.map((kind) => [camelCase(kind), (held: never) => topicRef(kind, held)])) as {
  [K in LiveTopicKind as CamelCase<K>]: (held: HeldOf<K>) => TopicRef<K>;
};

/** The key of a token-named topic from the token's kind and hash (what revocations announce). */
export function tokenTopicKey(kind: StreamKind, tokenHash: string): TopicKey {
  const topicKind = TOPIC_KINDS.find((k) => TOPIC_TABLE[k].streamKind === kind);
  if (!topicKind) throw new Error(`unknown stream kind ${kind}`);
  return TOPIC_TABLE[topicKind].name.key(tokenHash as never);
}

/** The stream token a token-named topic belongs to (its kind and hash); null for shared topics. */
export function streamTokenOf(ref: TopicRef): { kind: StreamKind; hash: string } | null {
  const streamKind = specOf(ref.kind)?.streamKind;
  const hash = streamKind ? tokenHashOfKey(ref.key) : null;
  return streamKind && hash ? { kind: streamKind, hash } : null;
}

/** What the publishing infrastructure (shared/platform/event-bus) asks of our topics. */
export const TOPIC_RULES: TopicRules = {
  carries: (kind, event) => {
    const spec = specOf(kind);
    return spec?.status === 'live' && Object.hasOwn(spec.events, event);
  },
  streamTokenOf,
};

/** A join without `last_seq` starts from the topic's first event rather than live. */
export function replaysFromStart(kind: TopicKind): boolean {
  return TOPIC_TABLE[kind].replayFromStart;
}

/** The topic's events after its snapshot are relayed from a feed topic (topic-table.ts, `relayed`). */
export function isRelayed(kind: TopicKind): boolean {
  return TOPIC_TABLE[kind].relayed;
}

/** Runs the topic's own join rule with the lookups the socket tier provides. */
export function authorizeJoin(topic: ParsedTopic, credentials: JoinCredentials, lookups: JoinLookups): Promise<JoinGrant> {
  const spec: AnyTopicSpec = TOPIC_TABLE[topic.kind];
  // `satisfies` in the table makes each entry's rule take its own name's parameter, which `topic` carries
  const authorize = spec.authorize as Authorize<ParsedTopic>;
  return authorize({ topic, credentials, streamKind: spec.streamKind }, lookups);
}

// Client-visible names of the topics the API and docs name today; any kind has `topicName(kind, arg)`.
export const quotesRequestsTopic = (chainId: number) => topicName('quotes_requests', chainId);
export const rfqMakerTopic = (address: string) => topicName('rfq_maker', address);
export const rfqStreamTopic = (token: string) => topicName('rfq_stream', token);
export const exploreClobStreamTopic = (token: string) => topicName('explore_clob_stream', token);
export const exploreLoanStreamTopic = (token: string) => topicName('explore_loan_stream', token);
export const marginRequestsTopic = (chainId: number) => topicName('margin_requests', chainId);
export const marginLenderTopic = (address: string) => topicName('margin_lender', address);
export const marginRfqStreamTopic = (token: string) => topicName('margin_rfq_stream', token);
