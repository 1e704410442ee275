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
  async proveControl(address: `0x${string}`, message: string, addressSignature: Hex): Promise<void> {
    const signer = await this.deps.verifier.recover(message, addressSignature, 'address_signature');
    if (signer && isAddressEqual(signer, address)) return;
    const why = `address_signature is not a signature of message by address ${address}: the bot wallet must personal_sign the same statement text the admin signed`;
    throw new ForbiddenError(why, 'address_signature_mismatch', [{ path: 'address_signature', message: why }]);
  }

  /**
   * 409 when the wallet already backs an active key (any organization, this one included) or
   * is a member of another organization of either kind. A member of the caller's own
   * organization may be its bot. Run after `proveControl`, so only the wallet's holder learns
   * where else it is bound.
   */
  async assertFree(address: `0x${string}`, organizationId: string): Promise<void> {
    if (await this.deps.keys.findActiveByAddress(address)) throw botAddressInUse(address);
    const elsewhere = (await this.deps.orgs.memberships(address)).find((m) => m.organizationId !== organizationId);
    if (elsewhere) {
      const message = `${address} belongs to another ${elsewhere.kind} organization; a bot wallet serves one organization only`;
      throw new ConflictError(message, 'bot_address_in_other_organization', [{ path: 'address', message }]);
    }
  }
}
