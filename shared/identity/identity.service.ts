import type { DataSource } from 'typeorm';
import type { Config } from '../platform/config';
import { UnauthorizedError } from '../platform/errors';
import type { Logger } from '../platform/logging';
import type { Redis } from '../platform/redis';
import { NetworksService } from '../networks';
import { AdminActionVerifier } from './admin-action-verifier';
import { ApiKeyRepository } from './api-key.repository';
import { BotWalletBinding } from './bot-wallet-binding';
import { ChallengeVerifier } from './bot-challenge.client';
import type { Principal, Role } from './identity.types';
import { TokenIssuer } from './jwt-tokens';
import { secretMatches } from '../platform/secrets';
import { looksLikeKeySecret, parseKeySecret } from './key-secrets';
import { MakerAdminService } from './maker-admin.service';
import { NonceStore } from './nonce-store';
import { OrganizationService } from './organization.service';
import { SignatureVerifier } from './signature-verifier';
import { SiweService } from './siwe.service';
import { TakerAdminService } from './taker-admin.service';
import type { DropKeyRegistrations } from './revocation';

/** Longer bearers are refused before any parsing or lookup. */
const MAX_BEARER_LENGTH = 4096;

/**
 * Which organization an active taker key belongs to (null: revoked or unknown): what a keyed
 * delegate is checked against on every request. The API answers it from memory kept fresh by the
 * revocation notices (api/gate-memory.ts); by default it is a read of the key's row.
 */
export interface ActiveTakerKeys {
  organizationOf(keyId: string): Promise<string | null>;
  /** Called when this process removed the key itself, before its notice goes out. */
  forget?(keyId: string): void;
}

/** The database's answer, read each time. */
export function activeTakerKeysOf(db: DataSource): ActiveTakerKeys {
  const keys = new ApiKeyRepository(db);
  return { organizationOf: async (keyId) => (await keys.findActive(keyId, 'taker'))?.organization_id ?? null };
}

/** Who GET /api/me describes: any principal that speaks for a wallet (a raw taker key does not). */
export type WalletPrincipal = Exclude<Principal, { kind: 'taker_key' }>;

/**
 * GET /api/me. `credential` says which kind of bearer answered. A SIWE session has the spec's
 * shape; a maker key is its bot wallet with maker rights but no managing role (`member`); a
 * delegate is its end-user wallet, acting for the taker organization that minted it.
 */
export type SessionView =
  | { credential: 'siwe'; address: string; tier: 'freemium' }
  | { credential: 'siwe'; address: string; tier: 'maker'; role: Role; organization_id: string; organization_name: string }
  | { credential: 'maker_key'; address: string; tier: 'maker'; role: 'member'; organization_id: string; organization_name: string; key_id: string }
  | { credential: 'delegate'; address: string; tier: 'freemium'; organization_id: string; organization_name: string; key_id: string | null };

/**
 * Identity for every role that authenticates: the API (routes and middleware) and the socket
 * tier (joins). Resolves bearers to principals and owns sign-in, organizations and keys.
 */
export class IdentityService {
  readonly tokens: TokenIssuer;
  readonly orgs: OrganizationService;
  readonly siwe: SiweService;
  readonly makerAdmin: MakerAdminService;
  readonly takerAdmin: TakerAdminService;
  readonly challenge: ChallengeVerifier;
  private readonly keys: ApiKeyRepository;
  private readonly takerKeys: ActiveTakerKeys;
  private readonly logger: Logger;

  /** `dropKeyRegistrations`: shared/events' own, which removing a maker key runs (revocation.ts). */
  constructor(deps: {
    config: Config;
    db: DataSource;
    redis: Redis;
    logger: Logger;
    dropKeyRegistrations: DropKeyRegistrations;
    /** Where a keyed delegate's taker key is checked: the API's gate memory, or the database each time. */
    takerKeys?: ActiveTakerKeys;
  }) {
    const { config, db, redis } = deps;
    const prefix = config.REDIS_PREFIX;
    this.logger = deps.logger;
    this.tokens = new TokenIssuer(config);
    this.keys = new ApiKeyRepository(db);
    this.takerKeys = deps.takerKeys ?? activeTakerKeysOf(db);
    this.orgs = new OrganizationService(db);
    const verifier = new SignatureVerifier({ networks: new NetworksService(db), rpcTimeoutMs: config.SIWE_RPC_TIMEOUT_MS, logger: deps.logger });
    const statements = new AdminActionVerifier({ db, verifier, orgs: this.orgs.repo });
    this.siwe = new SiweService({ config, nonces: new NonceStore(redis, prefix), verifier, tokens: this.tokens });
    const bots = new BotWalletBinding({ verifier, keys: this.keys, orgs: this.orgs.repo });
    this.makerAdmin = new MakerAdminService({
      keys: this.keys,
      orgs: this.orgs,
      statements,
      bots,
      redis,
      prefix,
      logger: deps.logger,
      dropKeyRegistrations: deps.dropKeyRegistrations,
    });
    const forgetKey = deps.takerKeys?.forget?.bind(deps.takerKeys);
    this.takerAdmin = new TakerAdminService({ keys: this.keys, statements, tokens: this.tokens, redis, prefix, logger: deps.logger, forgetKey });
    this.challenge = new ChallengeVerifier({ config, redis, prefix, logger: deps.logger });
  }

  /** Resolves a bearer credential (SIWE JWT, delegate JWT, maker key secret or taker key secret); null when invalid, expired or revoked. */
  async resolveBearer(raw: string): Promise<Principal | null> {
    if (raw.length === 0 || raw.length > MAX_BEARER_LENGTH) return null;
    if (looksLikeKeySecret(raw)) return this.resolveKey(raw);
    const t = await this.tokens.verify(raw);
    if (!t) return null;
    if (t.typ === 'siwe') return { kind: 'siwe', address: t.address, expiresAt: t.expiresAt };
    if (t.keyId) {
      // A delegate lives only as long as the key that minted it.
      if ((await this.takerKeys.organizationOf(t.keyId)) !== t.organizationId) return null;
    } else {
      const org = await this.orgs.repo.find(t.organizationId);
      if (!org || org.kind !== 'taker') return null;
    }
    return { kind: 'delegate', address: t.address, keyId: t.keyId, organizationId: t.organizationId, expiresAt: t.expiresAt };
  }

  /** Maker rights: a maker key, or a SIWE principal who is a member of a maker organization. */
  async hasMakerRights(p: Principal): Promise<boolean> {
    if (p.kind === 'maker_key') return true;
    if (p.kind !== 'siwe') return false;
    return (await this.orgs.membership(p.address, 'maker')) !== null;
  }

  /** GET /api/me for the resolved bearer; see SessionView for what each credential gets. */
  async session(p: WalletPrincipal): Promise<SessionView> {
    if (p.kind === 'siwe') {
      const m = await this.orgs.membership(p.address, 'maker');
      if (!m) return { credential: 'siwe', address: p.address, tier: 'freemium' };
      return { credential: 'siwe', address: p.address, tier: 'maker', role: m.role, organization_id: m.organizationId, organization_name: m.organizationName };
    }
    // The organization outlives its keys and delegates (removal cascades), so it is gone only
    // if it was deleted after the bearer resolved: then the bearer is no longer valid.
    const org = await this.orgs.repo.find(p.organizationId);
    if (!org) throw new UnauthorizedError('invalid, expired or revoked bearer token', 'invalid_bearer');
    const common = { address: p.address, organization_id: org.id, organization_name: org.name };
    // A key never manages its organization, whatever role its wallet holds there.
    if (p.kind === 'maker_key') return { credential: 'maker_key', tier: 'maker', role: 'member', ...common, key_id: p.keyId };
    return { credential: 'delegate', tier: 'freemium', ...common, key_id: p.keyId };
  }

  private async resolveKey(raw: string): Promise<Principal | null> {
    const parsed = parseKeySecret(raw);
    if (!parsed) return null;
    const key = await this.keys.findActive(parsed.keyId, parsed.kind);
    if (!key || !secretMatches(raw, key.secret_hash)) return null;
    await this.keys.touch(key).catch((err: unknown) => {
      this.logger.warn({ key_id: key.id, err: (err as Error).message }, 'could not record key use');
    });
    if (key.kind === 'maker') {
      return {
        kind: 'maker_key',
        address: key.address as `0x${string}`,
        keyId: key.id,
        organizationId: key.organization_id,
        verified: key.verified_at !== null,
      };
    }
    return { kind: 'taker_key', keyId: key.id, organizationId: key.organization_id };
  }
}
