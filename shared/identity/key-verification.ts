import { getAddress } from 'viem';

/** First line of the text a bot wallet signs to verify an unverified maker key. */
export const KEY_VERIFICATION_TITLE = 'Service maker key verification';

/**
 * The exact text the bot wallet personal_signs for POST /api/maker/keys/:id/verify: the key, the
 * wallet and the organization, so the signature verifies that one key and nothing else.
 */
export function makerKeyVerificationMessage(keyId: string, address: `0x${string}`, organizationId: string): string {
  return [KEY_VERIFICATION_TITLE, '', `Key: ${keyId.toLowerCase()}`, `Address: ${getAddress(address)}`, `Organization: ${organizationId.toLowerCase()}`].join(
    '\n',
  );
}
