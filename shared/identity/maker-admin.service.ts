import type { Hex } from 'viem';
import { NotFoundError } from '../platform/errors';
import type { Logger } from '../platform/logging';
import type { Redis } from '../platform/redis';
import type { AdminActionVerifier } from './admin-action-verifier';
import { KeyAddressTakenError, type ApiKeyRepository } from './api-key.repository';
import { botAddressInUse, type BotWalletBinding } from './bot-wallet-binding';
import type { MakerKeyView, Membership } from './identity.types';
import { hashSecret } from '../platform/secrets';
import { newKeySecret } from './key-secrets';
import { makerKeyView, removedKeyView } from './key.views';
import type { OrganizationService } from './organization.service';
import { publishRevocation, type DropKeyRegistrations } from './revocation';
import { makerKeyVerificationMessage } from './key-verification';

export interface SignedRequest {
  message: string;
  signature: Hex;
}

/**
 * What a maker organization's admin, owner or manager does: issue and remove bot keys and
 * transfer the admin role, each authorised by a signed statement checked against the request.
 * `manager` is the caller's membership, already checked to be a managing role.
 */
export class MakerAdminService {
  constructor(
    private readonly deps: {
      keys: ApiKeyRepository;
      orgs: OrganizationService;
      statements: AdminActionVerifier;
      bots: BotWalletBinding;
      redis: Redis;
      prefix: string;
      logger: Logger;
      dropKeyRegistrations: DropKeyRegistrations;
    },
  ) {}

  async listKeys(manager: Membership): Promise<{ keys: MakerKeyView[] }> {
    const rows = await this.deps.keys.listActive(manager.organizationId, 'maker');
    return { keys: rows.map(makerKeyView) };
  }

  /**
   * Statement: Action add_member, Member = the bot address, Name = the key name, signed by the
   * admin (`signature`) and, optionally, by the bot wallet (`addressSignature`). With the bot's
   * signature the key is verified at once, the wallet's conflicts are checked (reported only to
   * its holder), and unverified keys of that wallet elsewhere give way. Without it (the spec's
   * body) the key is unverified: it authenticates and posts package offers, nothing that binds
   * its wallet, until the wallet proves itself (verifyKey, or its own SIWE sign-in). Every check
   * runs before the statement is used up, so a refused request leaves nothing behind.
   */
  async addKey(
    manager: Membership,
    input: SignedRequest & { address: `0x${string}`; name: string; addressSignature?: Hex },
  ): Promise<MakerKeyView & { secret: string }> {
    const statement = await this.deps.statements.check(input.message, input.signature, {
      kind: 'maker',
      action: 'add_member',
      bearer: manager.address,
      member: input.address,
      organizationId: manager.organizationId,
      name: input.name,
    });
    const verified = input.addressSignature !== undefined;
    if (input.addressSignature !== undefined) {
      await this.deps.bots.proveControl(input.address, input.message, input.addressSignature);
      await this.deps.bots.assertFree(input.address, manager.organizationId, { ignoreUnverified: true });
    }
    await this.deps.statements.consume(statement);
    if (verified) await this.dropUnverified(input.address);
    const { keyId, secret } = newKeySecret('maker');
    const row = await this.deps.keys
      .insert({
        id: keyId,
        organizationId: manager.organizationId,
        kind: 'maker',
        name: input.name,
        address: input.address,
        secretHash: hashSecret(secret),
        createdBy: manager.address,
        verified,
      })
      .catch((err: unknown) => {
        // A concurrent add for the same wallet won between assertFree and the insert, or (unverified) the wallet has a key already.
        if (err instanceof KeyAddressTakenError) throw botAddressInUse(input.address);
        throw err;
      });
    this.deps.logger.info({ key_id: keyId, organization_id: manager.organizationId, by: manager.address, verified }, 'maker key issued');
    return { ...makerKeyView(row), secret };
  }

  /**
   * POST /api/maker/keys/:id/verify: the bot wallet's personal_sign of makerKeyVerificationMessage
   * verifies an unverified key of the caller's organization; the wallet's conflicts are checked
   * as for a verified add. Verifying a verified key answers it as it is.
   */
  async verifyKey(manager: Membership, keyId: string, signature: Hex): Promise<MakerKeyView> {
    const key = await this.deps.keys.findActive(keyId, 'maker');
    if (!key || key.organization_id !== manager.organizationId || !key.address) {
      throw new NotFoundError(`no maker key ${keyId} in this organization`, 'key_not_found');
    }
    const address = key.address as `0x${string}`;
    if (key.verified_at) return makerKeyView(key);
    await this.deps.bots.proveControl(address, makerKeyVerificationMessage(key.id, address, key.organization_id), signature, 'signature');
    await this.deps.bots.assertFree(address, manager.organizationId, { ignoreUnverified: true, exceptKey: key.id });
    const row = await this.deps.keys.markVerified(key.id);
    if (!row) throw new NotFoundError(`no maker key ${keyId} in this organization`, 'key_not_found');
    this.deps.logger.info({ key_id: key.id, organization_id: manager.organizationId, by: manager.address }, 'maker key verified');
    return makerKeyView(row);
  }

  /** A SIWE sign-in proves the wallet: its unverified keys become verified. */
  async verifyBySignIn(address: `0x${string}`): Promise<void> {
    const ids = await this.deps.keys.verifyAllOf(address);
    if (ids.length > 0) this.deps.logger.info({ key_ids: ids }, 'maker keys verified by their bot wallet signing in');
  }

  /** Unverified keys of a wallet that just proved itself for another key: removed, and announced like any removal. */
  private async dropUnverified(address: `0x${string}`): Promise<void> {
    for (const { id } of await this.deps.keys.revokeUnverifiedOf(address)) {
      await publishRevocation(this.deps.redis, this.deps.prefix, { kind: 'maker_key', keyId: id }, this.deps.logger, this.deps.dropKeyRegistrations);
    }
  }

  /** Statement: Action remove_member, Member = the key's bot address, Name = the key's name. */
  async removeKey(manager: Membership, keyId: string, input: SignedRequest): Promise<MakerKeyView & { removed_at: string }> {
    const key = await this.deps.keys.findActive(keyId, 'maker');
    if (!key || key.organization_id !== manager.organizationId) throw new NotFoundError(`no maker key ${keyId} in this organization`, 'key_not_found');
    await this.deps.statements.verify(input.message, input.signature, {
      kind: 'maker',
      action: 'remove_member',
      bearer: manager.address,
      member: key.address as `0x${string}`,
      organizationId: manager.organizationId,
      name: key.name,
    });
    const revoked = await this.deps.keys.revoke(keyId, manager.organizationId, 'maker');
    if (!revoked) throw new NotFoundError(`no maker key ${keyId} in this organization`, 'key_not_found');
    await publishRevocation(this.deps.redis, this.deps.prefix, { kind: 'maker_key', keyId }, this.deps.logger, this.deps.dropKeyRegistrations);
    this.deps.logger.info({ key_id: keyId, organization_id: manager.organizationId, by: manager.address }, 'maker key removed');
    return removedKeyView<MakerKeyView>(revoked);
  }

  /**
   * Statement: Action transfer_admin, Member = the new admin, Name = the organization's name,
   * signed by the acting admin (`signature`) and by the new admin itself (`newAdminSignature`):
   * the role makes the wallet a member, and a membership must never be pinned on a wallet that
   * did not ask for it. A wallet that backs another organization's active maker key is refused
   * (409 naming it): it serves that organization. Every check runs before the statement is used up.
   */
  async transferAdmin(manager: Membership, input: SignedRequest & { newAdmin: `0x${string}`; newAdminSignature: Hex }) {
    const statement = await this.deps.statements.check(input.message, input.signature, {
      kind: 'maker',
      action: 'transfer_admin',
      bearer: manager.address,
      member: input.newAdmin,
      organizationId: manager.organizationId,
      name: manager.organizationName,
    });
    await this.deps.bots.proveControl(input.newAdmin, input.message, input.newAdminSignature, 'new_admin_signature');
    await this.deps.bots.assertNotBotElsewhere(input.newAdmin, manager.organizationId, 'new_admin');
    await this.deps.statements.consume(statement);
    const result = await this.deps.orgs.transferAdmin(manager, input.newAdmin);
    this.deps.logger.info({ organization_id: manager.organizationId, by: manager.address, admin: input.newAdmin }, 'maker admin transferred');
    return result;
  }
}
