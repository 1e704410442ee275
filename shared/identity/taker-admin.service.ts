import { NotFoundError } from '../platform/errors';
import type { Logger } from '../platform/logging';
import type { Redis } from '../platform/redis';
import type { AdminActionVerifier } from './admin-action-verifier';
import type { ApiKeyRepository } from './api-key.repository';
import type { IssuedKey, KeyView, Membership } from './identity.types';
import type { TokenIssuer } from './jwt-tokens';
import { hashSecret } from '../platform/secrets';
import { newKeySecret } from './key-secrets';
import { keyView, removedKeyView } from './key.views';
import type { SignedRequest } from './maker-admin.service';
import { publishRevocation } from './revocation';

export interface DelegateGrant {
  token: string;
  address: `0x${string}`;
  expires_in: number;
  key_id?: string;
}

/**
 * Taker organizations: their admin manages long-lived API keys (a signed-in session is
 * enough), and delegates are minted for end-user wallets either with a key (the JWT carries
 * `key_id`) or by the admin with a signed `mint_delegate` statement (no `key_id`).
 */
export class TakerAdminService {
  constructor(
    private readonly deps: {
      keys: ApiKeyRepository;
      statements: AdminActionVerifier;
      tokens: TokenIssuer;
      redis: Redis;
      prefix: string;
      logger: Logger;
      /** What this process remembers of taker keys (the API's gate memory) forgets a removed one at once. */
      forgetKey?: (keyId: string) => void;
    },
  ) {}

  async listKeys(manager: Membership): Promise<{ keys: KeyView[] }> {
    const rows = await this.deps.keys.listActive(manager.organizationId, 'taker');
    return { keys: rows.map(keyView) };
  }

  async addKey(manager: Membership, name: string): Promise<IssuedKey> {
    const { keyId, secret } = newKeySecret('taker');
    const row = await this.deps.keys.insert({
      id: keyId,
      organizationId: manager.organizationId,
      kind: 'taker',
      name,
      address: null,
      secretHash: hashSecret(secret),
      createdBy: manager.address,
    });
    this.deps.logger.info({ key_id: keyId, organization_id: manager.organizationId, by: manager.address }, 'taker key issued');
    return { ...keyView(row), secret };
  }

  /** Removing a key also ends every delegate it minted: delegates are checked against their key. */
  async removeKey(manager: Membership, keyId: string): Promise<KeyView & { removed_at: string }> {
    const revoked = await this.deps.keys.revoke(keyId, manager.organizationId, 'taker');
    if (!revoked) throw new NotFoundError(`no taker key ${keyId} in this organization`, 'key_not_found');
    this.deps.forgetKey?.(keyId);
    await publishRevocation(this.deps.redis, this.deps.prefix, { kind: 'taker_key', keyId }, this.deps.logger, null);
    this.deps.logger.info({ key_id: keyId, organization_id: manager.organizationId, by: manager.address }, 'taker key removed');
    return removedKeyView(revoked);
  }

  async mintWithKey(key: { keyId: string; organizationId: string }, d: { address: `0x${string}`; expiresIn: number }): Promise<DelegateGrant> {
    const token = await this.deps.tokens.signDelegate({ address: d.address, organizationId: key.organizationId, keyId: key.keyId, expiresIn: d.expiresIn });
    return { token, address: d.address, expires_in: d.expiresIn, key_id: key.keyId };
  }

  /** Statement: title `Service taker admin action`, Action mint_delegate, Member = the delegate wallet, Name = the organization's name. */
  async mintAsAdmin(manager: Membership, d: SignedRequest & { address: `0x${string}`; expiresIn: number }): Promise<DelegateGrant> {
    await this.deps.statements.verify(d.message, d.signature, {
      kind: 'taker',
      action: 'mint_delegate',
      bearer: manager.address,
      member: d.address,
      organizationId: manager.organizationId,
      name: manager.organizationName,
    });
    const token = await this.deps.tokens.signDelegate({ address: d.address, organizationId: manager.organizationId, keyId: null, expiresIn: d.expiresIn });
    return { token, address: d.address, expires_in: d.expiresIn };
  }
}
