import { getAddress, isAddress } from 'viem';
import { hashStreamToken, STREAM_TOKEN_PATTERN, type StreamKind } from '../platform/stream-tokens';

/**
 * Topic names as clients see them (the spec's Events table), and the keys events are stored
 * and routed under. The two differ only for topics named by a stream token: the token is a
 * secret and workers only ever hold its sha-256, so those topics are keyed by the hash.
 */

/** Topic kinds a client may join today. */
export const LIVE_TOPIC_KINDS = ['quotes_requests', 'rfq_maker', 'rfq_stream', 'explore_clob_stream', 'explore_loan_stream'] as const;
/** Topic kinds the spec lists as coming soon: recognised, refused on join. */
export const PLANNED_TOPIC_KINDS = ['margin_requests', 'margin_lender', 'margin_rfq_stream'] as const;

export type LiveTopicKind = (typeof LIVE_TOPIC_KINDS)[number];
export type PlannedTopicKind = (typeof PLANNED_TOPIC_KINDS)[number];
export type TopicKind = LiveTopicKind | PlannedTopicKind;

/** The stream-token kind a token-named topic is opened by. */
export const TOKEN_TOPIC_STREAM_KIND = {
  rfq_stream: 'rfq',
  explore_clob_stream: 'explore_clob',
  explore_loan_stream: 'explore_loan',
} as const satisfies Partial<Record<TopicKind, StreamKind>>;
export type TokenTopicKind = keyof typeof TOKEN_TOPIC_STREAM_KIND;

/** Where a topic's events are stored and published: never contains a secret. */
export type TopicKey = string & { readonly __topicKey: unique symbol };

/** A topic that events can be published to: its kind (which fixes its event names) and key. */
export interface TopicRef<K extends LiveTopicKind = LiveTopicKind> {
  kind: K;
  key: TopicKey;
}

export type ParsedTopic =
  | { kind: 'quotes_requests' | 'margin_requests'; key: TopicKey; chainId: number }
  | { kind: 'rfq_maker' | 'margin_lender'; key: TopicKey; address: `0x${string}` }
  | { kind: TokenTopicKind | 'margin_rfq_stream'; key: TopicKey; token: string };

const asKey = (s: string) => s as TopicKey;
const HASH = /^[0-9a-f]{64}$/;

// ---- client-visible names (what API responses and docs show) ----

export const quotesRequestsTopic = (chainId: number) => `quotes:${chainId}:requests`;
/** Addresses appear checksummed, as everywhere in the API; joins accept any case. */
export const rfqMakerTopic = (address: string) => `rfq_maker:${getAddress(address)}`;
export const rfqStreamTopic = (token: string) => `rfq_stream:${token}`;
export const exploreClobStreamTopic = (token: string) => `explore_clob_stream:${token}`;
export const exploreLoanStreamTopic = (token: string) => `explore_loan_stream:${token}`;
export const marginRequestsTopic = (chainId: number) => `margin:${chainId}:requests`;
export const marginLenderTopic = (address: string) => `margin_lender:${getAddress(address)}`;
export const marginRfqStreamTopic = (token: string) => `margin_rfq_stream:${token}`;

// ---- refs publishers use ----

function requireChainId(chainId: number): number {
  if (!Number.isSafeInteger(chainId) || chainId < 1) throw new Error(`bad chain id ${chainId}`);
  return chainId;
}

function requireHash(tokenHash: string): string {
  if (!HASH.test(tokenHash)) throw new Error('a stream token hash is 64 lower-case hex digits (hashStreamToken)');
  return tokenHash;
}

/**
 * Builders of publishable topics. Token-named topics take the token's hash (what a quote
 * or explore row stores), or the raw token through `topicRefOf(name)`.
 */
export const topics = {
  quotesRequests: (chainId: number): TopicRef<'quotes_requests'> => ({
    kind: 'quotes_requests',
    key: asKey(quotesRequestsTopic(requireChainId(chainId))),
  }),
  rfqMaker: (address: string): TopicRef<'rfq_maker'> => ({ kind: 'rfq_maker', key: asKey(rfqMakerTopic(address)) }),
  rfqStream: (tokenHash: string): TopicRef<'rfq_stream'> => ({ kind: 'rfq_stream', key: asKey(`rfq_stream:#${requireHash(tokenHash)}`) }),
  exploreClobStream: (tokenHash: string): TopicRef<'explore_clob_stream'> => ({
    kind: 'explore_clob_stream',
    key: asKey(`explore_clob_stream:#${requireHash(tokenHash)}`),
  }),
  exploreLoanStream: (tokenHash: string): TopicRef<'explore_loan_stream'> => ({
    kind: 'explore_loan_stream',
    key: asKey(`explore_loan_stream:#${requireHash(tokenHash)}`),
  }),
};

/** The key of a token-named topic from the token's kind and hash (what revocations announce). */
export function tokenTopicKey(kind: StreamKind, tokenHash: string): TopicKey {
  const topicKind = (Object.keys(TOKEN_TOPIC_STREAM_KIND) as TokenTopicKind[]).find((k) => TOKEN_TOPIC_STREAM_KIND[k] === kind);
  if (!topicKind) throw new Error(`unknown stream kind ${kind}`);
  return asKey(`${topicKind}:#${requireHash(tokenHash)}`);
}

/** The stream token a token-named topic belongs to (its kind and hash); null for shared topics. */
export function streamTokenOf(ref: TopicRef): { kind: StreamKind; hash: string } | null {
  if (!(ref.kind in TOKEN_TOPIC_STREAM_KIND)) return null;
  const at = ref.key.indexOf(':#');
  return at < 0 ? null : { kind: TOKEN_TOPIC_STREAM_KIND[ref.kind as TokenTopicKind], hash: ref.key.slice(at + 2) };
}

const CHAIN = '([1-9][0-9]{0,15})';
const PATTERNS: { re: RegExp; build: (m: RegExpExecArray) => ParsedTopic | null }[] = [
  { re: new RegExp(`^quotes:${CHAIN}:requests$`), build: (m) => chainTopic('quotes_requests', m[1]) },
  { re: new RegExp(`^margin:${CHAIN}:requests$`), build: (m) => chainTopic('margin_requests', m[1]) },
  { re: /^rfq_maker:(0x[0-9a-fA-F]{40})$/, build: (m) => addressTopic('rfq_maker', m[1]) },
  { re: /^margin_lender:(0x[0-9a-fA-F]{40})$/, build: (m) => addressTopic('margin_lender', m[1]) },
  { re: /^(rfq_stream|explore_clob_stream|explore_loan_stream|margin_rfq_stream):(.+)$/, build: (m) => tokenTopic(m[1] as TokenTopicKind, m[2]) },
];

function chainTopic(kind: 'quotes_requests' | 'margin_requests', digits: string): ParsedTopic | null {
  const chainId = Number(digits);
  if (!Number.isSafeInteger(chainId)) return null;
  const name = kind === 'quotes_requests' ? quotesRequestsTopic(chainId) : marginRequestsTopic(chainId);
  return { kind, key: asKey(name), chainId };
}

function addressTopic(kind: 'rfq_maker' | 'margin_lender', raw: string): ParsedTopic | null {
  if (!isAddress(raw, { strict: false })) return null;
  const address = getAddress(raw);
  return { kind, key: asKey(`${kind}:${address}`), address };
}

function tokenTopic(kind: TokenTopicKind | 'margin_rfq_stream', token: string): ParsedTopic | null {
  if (!STREAM_TOKEN_PATTERN.test(token)) return null;
  return { kind, key: asKey(`${kind}:#${hashStreamToken(token)}`), token };
}

/** A client-visible topic name parsed into its kind, canonical key and parameter; null when it is no topic of ours. */
export function parseTopic(name: string): ParsedTopic | null {
  if (typeof name !== 'string' || name.length > 255) return null;
  for (const p of PATTERNS) {
    const m = p.re.exec(name);
    if (m) return p.build(m);
  }
  return null;
}

/** A publishable ref from a client-visible name (raw tokens are hashed); null for unknown or planned topics. */
export function topicRefOf(name: string): TopicRef | null {
  const t = parseTopic(name);
  if (!t || !(LIVE_TOPIC_KINDS as readonly string[]).includes(t.kind)) return null;
  return { kind: t.kind as LiveTopicKind, key: t.key };
}
