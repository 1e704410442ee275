import { getAddress, isAddressEqual, recoverMessageAddress, type Address, type Hex } from 'viem';
import { ForbiddenError } from '../platform/errors';
import { assertCanonicalSignature } from '../protocol';

/** First line of the text a filler signs to let one maker name it on one Dutch quote. */
export const FILLER_CONSENT_TITLE = 'Service Dutch filler consent';

/**
 * The exact text a bid's `filler` personal_signs (`filler_signature`) when it is neither the
 * bidding wallet nor a wallet of the bidding organization: the quote, the maker that names it,
 * and itself. Bound to one quote and one maker, so it cannot be reused elsewhere.
 */
export function fillerConsentMessage(quoteId: string, maker: Address, filler: Address): string {
  return [FILLER_CONSENT_TITLE, '', `Quote: ${quoteId.toLowerCase()}`, `Maker: ${getAddress(maker)}`, `Filler: ${getAddress(filler)}`].join('\n');
}

/** 403 unless `signature` is `filler`'s personal_sign of fillerConsentMessage. */
export async function assertFillerConsent(quoteId: string, maker: Address, filler: Address, signature: Hex | undefined): Promise<void> {
  const message = fillerConsentMessage(quoteId, maker, filler);
  if (signature === undefined) {
    const why = `filler ${filler} is neither your wallet nor a wallet of your organization: it must consent with filler_signature, its personal_sign of ${JSON.stringify(message)}`;
    throw new ForbiddenError(why, 'filler_consent_required', [{ path: 'filler_signature', message: why }]);
  }
  if (signature.length === 132) assertCanonicalSignature(signature, 'filler_signature');
  const signer = await recoverMessageAddress({ message, signature }).catch(() => null);
  if (signer && isAddressEqual(signer, filler)) return;
  const why = `filler_signature is not ${filler}'s personal_sign of ${JSON.stringify(message)}`;
  throw new ForbiddenError(why, 'filler_signature_mismatch', [{ path: 'filler_signature', message: why }]);
}
