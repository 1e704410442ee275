import { TOKEN_TOPIC_STREAM_KIND, type ParsedTopic, type PubsubTier } from '../shared/events';
import type { Principal } from '../shared/identity';
import type { StreamKind } from '../shared/platform/stream-tokens';

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

/** Credentials offered for a join: from its payload, else from the connection's query or auth token. */
export interface JoinCredentials {
  token?: string;
  api_key?: string;
}

export type JoinGrant =
  | { ok: true; expiresAt: number; keyId: string | null }
  | { ok: false; reason: string };

const refuse = (reason: string): JoinGrant => ({ ok: false, reason });

/**
 * Who may join what (the spec's Events table):
 * - token-named topics: the token in the topic is the credential, nothing else is looked at;
 * - `quotes:<chain>:requests`: a wallet registered for that chain (premium or freemium);
 * - `rfq_maker:<address>`: that wallet only: a maker API key of that bot, or the wallet's own
 *   SIWE bearer when it has maker rights or a pubsub registration (the freemium registration
 *   advertises this topic, so what it advertises can be joined). A delegate never: its wallet
 *   was named by a taker organization, which proves no control of it.
 * A grant carries the credential's expiry and key id so the channel ends with it.
 */
export class ChannelAuthorizer {
  constructor(
    private readonly deps: {
      streams: StreamTokenVerifier;
      identity: BearerResolver;
      registrations: RegistrationLookup;
    },
  ) {}

  async authorize(topic: ParsedTopic, creds: JoinCredentials): Promise<JoinGrant> {
    switch (topic.kind) {
      case 'rfq_stream':
      case 'explore_clob_stream':
      case 'explore_loan_stream': {
        const rec = await this.deps.streams.verify(TOKEN_TOPIC_STREAM_KIND[topic.kind], topic.token);
        return rec ? { ok: true, expiresAt: rec.expiresAt, keyId: null } : refuse('invalid or expired stream token');
      }
      case 'quotes_requests':
        return this.requests(topic.chainId, creds);
      case 'rfq_maker':
        return this.maker(topic.address, creds);
      default:
        return refuse('this topic is coming soon and cannot be joined yet');
    }
  }

  private async requests(chainId: number, creds: JoinCredentials): Promise<JoinGrant> {
    const who = await this.principal(creds);
    if (!who.ok) return who;
    const p = who.principal;
    if (p.kind === 'taker_key') return refuse('a wallet credential is required: sign in, or use a delegate or maker key');
    const tier = await this.deps.registrations.tierOf(chainId, p.address);
    if (!tier) return refuse(`not registered for chain ${chainId}: POST /api/pubsub/premium or /api/pubsub/freemium first`);
    return grant(p);
  }

  private async maker(address: `0x${string}`, creds: JoinCredentials): Promise<JoinGrant> {
    const who = await this.principal(creds);
    if (!who.ok) return who;
    const p = who.principal;
    if ((p.kind !== 'siwe' && p.kind !== 'maker_key') || p.address !== address) {
      return refuse('only that maker may join: its SIWE bearer or one of its maker API keys');
    }
    if (p.kind === 'siwe' && !(await this.deps.identity.hasMakerRights(p)) && !(await this.deps.registrations.registeredAnywhere(address))) {
      return refuse('maker rights or a pubsub registration required: POST /api/pubsub/freemium first');
    }
    return grant(p);
  }

  /** `api_key` must be a maker key; `token` a SIWE or delegate bearer. */
  private async principal(creds: JoinCredentials): Promise<{ ok: true; principal: Principal } | { ok: false; reason: string }> {
    if (creds.api_key !== undefined) {
      const p = await this.deps.identity.resolveBearer(creds.api_key);
      if (!p || p.kind !== 'maker_key') return { ok: false, reason: 'invalid api_key' };
      return { ok: true, principal: p };
    }
    if (creds.token !== undefined) {
      const p = await this.deps.identity.resolveBearer(creds.token);
      if (!p || (p.kind !== 'siwe' && p.kind !== 'delegate')) return { ok: false, reason: 'invalid or expired token' };
      return { ok: true, principal: p };
    }
    return { ok: false, reason: 'authentication required: join with {"token": ...} or {"api_key": ...}' };
  }
}

function grant(p: Principal): JoinGrant {
  const expiresAt = p.kind === 'siwe' || p.kind === 'delegate' ? p.expiresAt : 0;
  const keyId = p.kind === 'maker_key' || p.kind === 'taker_key' ? p.keyId : p.kind === 'delegate' ? p.keyId : null;
  return { ok: true, expiresAt, keyId };
}
