import type { Principal } from '../identity';
import type { StreamKind } from '../platform/stream-tokens';
import type { PubsubTier } from './pubsub-registrations';
import type { AddressParam, ChainParam, TokenParam } from './topic-names';

/**
 * Who may join what: one authorize function per rule, named by the topic table's entries.
 * They do no I/O of their own: whatever they need to look up (a stream token, a bearer, a
 * pubsub registration) is asked through `JoinLookups`, which the socket tier provides.
 */

/** Checks the token a token-named topic carries. `StreamTokens` (shared/platform/stream-tokens) is the implementation. */
export interface StreamTokenVerifier {
  verify(kind: StreamKind, token: string): Promise<{ expiresAt: number } | null>;
}

/** The part of IdentityService joins need. */
export interface BearerResolver {
  resolveBearer(raw: string): Promise<Principal | null>;
  hasMakerRights(p: Principal): Promise<boolean>;
}

export interface RegistrationLookup {
  tierOf(chainId: number, address: string): Promise<PubsubTier | null>;
  registeredAnywhere(address: string): Promise<boolean>;
}

export interface JoinLookups {
  streams: StreamTokenVerifier;
  identity: BearerResolver;
  registrations: RegistrationLookup;
}

/** Credentials offered for a join: from its payload, else from the connection's query or auth token. */
export interface JoinCredentials {
  token?: string;
  api_key?: string;
}

/** A grant carries the credential's expiry (unix ms, 0 = none) and key id, so the channel ends with it. */
export type JoinGrant = { ok: true; expiresAt: number; keyId: string | null } | { ok: false; reason: string };

/** One join as its topic's rule sees it: the parsed topic, what the client offered, and the topic's stream-token kind. */
export interface JoinAttempt<P> {
  topic: P;
  credentials: JoinCredentials;
  /** The table's stream-token kind of the topic; null for shared topics. */
  streamKind: StreamKind | null;
}

export type Authorize<P> = (attempt: JoinAttempt<P>, lookups: JoinLookups) => Promise<JoinGrant>;

const refuse = (reason: string): JoinGrant => ({ ok: false, reason });

/** Token-named topics: the token in the topic is the credential, nothing else is looked at. */
export const holdsStreamToken: Authorize<TokenParam> = async ({ topic, streamKind }, { streams }) => {
  const rec = streamKind ? await streams.verify(streamKind, topic.token) : null;
  return rec ? { ok: true, expiresAt: rec.expiresAt, keyId: null } : refuse('invalid or expired stream token');
};

/** A chain's request feed: a wallet registered for that chain (premium or freemium). */
export const registeredForChain: Authorize<ChainParam> = async ({ topic, credentials }, lookups) => {
  const who = await principalOf(credentials, lookups);
  if (!who.ok) return who;
  const p = who.principal;
  if (p.kind === 'taker_key') return refuse('a wallet credential is required: sign in, or use a delegate or maker key');
  const tier = await lookups.registrations.tierOf(topic.chainId, p.address);
  if (!tier) return refuse(`not registered for chain ${topic.chainId}: POST /api/pubsub/premium or /api/pubsub/freemium first`);
  return grant(p);
};

/**
 * A wallet's own topic: a maker API key of that bot, or the wallet's own SIWE bearer when it
 * has maker rights or a pubsub registration (the freemium registration advertises this topic,
 * so what it advertises can be joined). A delegate never: its wallet was named by a taker
 * organization, which proves no control of it.
 */
export const thatMakerOnly: Authorize<AddressParam> = async ({ topic, credentials }, lookups) => {
  const who = await principalOf(credentials, lookups);
  if (!who.ok) return who;
  const p = who.principal;
  if ((p.kind !== 'siwe' && p.kind !== 'maker_key') || p.address !== topic.address) {
    return refuse('only that maker may join: its SIWE bearer or one of its maker API keys');
  }
  if (p.kind === 'maker_key' && !p.verified) {
    return refuse(
      'this maker key is unverified: verify it with its bot wallet (POST /api/maker/keys/:id/verify, or sign in with the wallet) before joining rfq_maker',
    );
  }
  if (p.kind === 'siwe' && !(await lookups.identity.hasMakerRights(p)) && !(await lookups.registrations.registeredAnywhere(topic.address))) {
    return refuse('maker rights or a pubsub registration required: POST /api/pubsub/freemium first');
  }
  return grant(p);
};

/** Topics the spec lists as coming soon: recognised, refused. */
export const comingSoon: Authorize<unknown> = async () => refuse('this topic is coming soon and cannot be joined yet');

/** `api_key` must be a maker key; `token` a SIWE or delegate bearer. */
async function principalOf(creds: JoinCredentials, lookups: JoinLookups): Promise<{ ok: true; principal: Principal } | { ok: false; reason: string }> {
  if (creds.api_key !== undefined) {
    const p = await lookups.identity.resolveBearer(creds.api_key);
    if (!p || p.kind !== 'maker_key') return { ok: false, reason: 'invalid api_key' };
    return { ok: true, principal: p };
  }
  if (creds.token !== undefined) {
    const p = await lookups.identity.resolveBearer(creds.token);
    if (!p || (p.kind !== 'siwe' && p.kind !== 'delegate')) return { ok: false, reason: 'invalid or expired token' };
    return { ok: true, principal: p };
  }
  return { ok: false, reason: 'authentication required: join with {"token": ...} or {"api_key": ...}' };
}

function grant(p: Principal): JoinGrant {
  const expiresAt = p.kind === 'siwe' || p.kind === 'delegate' ? p.expiresAt : 0;
  const keyId = p.kind === 'maker_key' || p.kind === 'taker_key' ? p.keyId : p.kind === 'delegate' ? p.keyId : null;
  return { ok: true, expiresAt, keyId };
}
