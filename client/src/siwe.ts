import type { LocalAccount } from 'viem/accounts';
import { createSiweMessage } from 'viem/siwe';
import type { LoginNonce } from './api.types';

/**
 * The EIP-4361 message for a nonce the server issued. The server checks every field against
 * what it issued (domain, URI, chain, statement, times), so each is copied, never invented.
 */
export function siweMessageFor(address: `0x${string}`, n: LoginNonce): string {
  return createSiweMessage({
    address,
    domain: n.domain,
    uri: n.uri,
    chainId: n.chain_id,
    statement: n.statement,
    version: n.version as '1',
    nonce: n.nonce,
    issuedAt: new Date(n.issued_at),
    expirationTime: new Date(n.expiration_time),
  });
}

/** Signs the sign-in message with a viem account (a local key or any account that signs messages). */
export async function signSiwe(account: Pick<LocalAccount, 'address' | 'signMessage'>, n: LoginNonce): Promise<{ message: string; signature: `0x${string}` }> {
  const message = siweMessageFor(account.address, n);
  return { message, signature: await account.signMessage({ message }) };
}
