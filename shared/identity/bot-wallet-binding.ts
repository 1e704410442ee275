import { isAddressEqual, type Hex } from 'viem';
import { ConflictError, ForbiddenError } from '../platform/errors';
import type { ApiKeyRepository } from './api-key.repository';
import type { OrganizationRepository } from './organization.repository';
import type { SignatureVerifier } from './signature-verifier';

/** One active key per bot wallet; the hint is the way out of the conflict. */
export function botAddressInUse(address: string): ConflictError {
  const message = `${address} is already the address of an active maker key; remove that key first (one active key per bot wallet)`;
  return new ConflictError(message, 'bot_address_in_use', [{ path: 'address', message }]);
}

/**
 * Who a maker key may speak for. A key acts as its bot wallet everywhere (REST, the private
 * `rfq_maker:<address>` topic, premium registration), so binding one is the bot wallet's
 * decision as much as the admin's: the wallet signs the admin's statement too, and a wallet
 * backs one active key and serves one organization.
 */
export class BotWalletBinding {
  constructor(private readonly deps: { verifier: SignatureVerifier; keys: ApiKeyRepository; orgs: OrganizationRepository }) {}

  /**
   * 403 unless `addressSignature` is `address`'s personal_sign of exactly `message`. Checked
   * by recovery (offline), like admin statements: a bot signs offers with a plain key anyway.
   */
  async proveControl(
    address: `0x${string}`,
    message: string,
    addressSignature: Hex,
    field: 'address_signature' | 'new_admin_signature' | 'signature' = 'address_signature',
  ): Promise<void> {
    const signer = await this.deps.verifier.recover(message, addressSignature, field);
    if (signer && isAddressEqual(signer, address)) return;
    if (field === 'signature') {
      const why = `signature is not ${address}'s personal_sign of the key's verification text: the bot wallet itself must sign it`;
      throw new ForbiddenError(why, 'address_signature_mismatch', [{ path: field, message: why }]);
    }
    const who = field === 'address_signature' ? 'the bot wallet' : 'the new admin';
    const why = `${field} is not a signature of message by address ${address}: ${who} must personal_sign the same statement text the admin signed`;
    throw new ForbiddenError(why, `${field}_mismatch`, [{ path: field, message: why }]);
  }

  /**
   * 409 when `address` backs an active maker key of another organization: that wallet acts for
   * the organization that issued its key, and no other organization may make it a member.
   */
  async assertNotBotElsewhere(address: `0x${string}`, organizationId: string, field: string): Promise<void> {
    const key = await this.deps.keys.findVerifiedByAddress(address);
    if (!key || key.organization_id === organizationId) return;
    const message = `${address} is the bot wallet of an active maker key of another organization; it serves that organization and cannot join this one`;
    throw new ConflictError(message, 'wallet_backs_other_organization_key', [{ path: field, message }]);
  }

  /**
   * 409 when the wallet already backs an active key (any organization, this one included) or
   * is a member of another organization of either kind. A member of the caller's own
   * organization may be its bot. Run after `proveControl`, so only the wallet's holder learns
   * where else it is bound.
   */
  async assertFree(address: `0x${string}`, organizationId: string, o: { ignoreUnverified?: boolean; exceptKey?: string } = {}): Promise<void> {
    const key = o.ignoreUnverified ? await this.deps.keys.findVerifiedByAddress(address) : await this.deps.keys.findActiveByAddress(address);
    if (key && key.id !== o.exceptKey) throw botAddressInUse(address);
    const elsewhere = (await this.deps.orgs.memberships(address)).find((m) => m.organizationId !== organizationId);
    if (elsewhere) {
      const message = `${address} belongs to another ${elsewhere.kind} organization; a bot wallet serves one organization only`;
      throw new ConflictError(message, 'bot_address_in_other_organization', [{ path: 'address', message }]);
    }
  }
}
