import { createPublicClient, http, isAddressEqual, recoverMessageAddress, type Hex, type PublicClient } from 'viem';
import { ServiceUnavailableError } from '../platform/errors';
import type { Logger } from '../platform/logging';
import { assertCanonicalSignature, isCanonicalSignature } from '../protocol';
import type { NetworksService } from '../networks';

/**
 * personal_sign (EIP-191) verification. An externally owned account is checked by recovery,
 * offline. When recovery does not give the claimed address and that address holds code on the
 * message's network, the wallet is a contract and is asked through the network's RPC
 * (ERC-1271, via viem's verifyMessage). Counterfactual (not yet deployed) wallets have no code
 * and are refused: deploy the wallet before signing in.
 *
 * An externally owned account's signature must be canonical, the same rule the contracts apply
 * (shared/protocol/signatures.ts: 65 bytes, low s, v 27/28): a malleated twin (s' = n - s, v
 * flipped) or an out-of-range v is a 400 naming the request field, never a second valid form.
 */
export class SignatureVerifier {
  private readonly clients = new Map<string, PublicClient>();

  constructor(private readonly deps: { networks: NetworksService; rpcTimeoutMs: number; logger: Logger }) {}

  /**
   * True when `signature` over `message` is `address`'s. Throws 503 when a needed RPC is
   * unreachable, and 400 naming `field` when a 65-byte signature is not canonical and
   * `address` is not a contract wallet (whose signature format is the wallet's own business).
   */
  async verify(v: { address: `0x${string}`; message: string; signature: Hex; chainId?: number; field?: string }): Promise<boolean> {
    const field = v.field ?? 'signature';
    const eoaForm = v.signature.length === 132;
    const canonical = eoaForm && isCanonicalSignature(v.signature);
    if (canonical && (await this.recoversTo(v.address, v.message, v.signature))) return true;
    const refuse = (): false => {
      if (eoaForm && !canonical) assertCanonicalSignature(v.signature, field);
      return false;
    };
    if (v.chainId === undefined) return refuse();
    const client = await this.clientFor(v.chainId);
    if (!client) return refuse();
    const verdict = await this.askContractWallet(client, v);
    return verdict ?? refuse();
  }

  /** ERC-1271 through the chain: the wallet's verdict, or null when `address` holds no code (not a contract wallet). */
  private async askContractWallet(
    client: PublicClient,
    v: { address: `0x${string}`; message: string; signature: Hex; chainId?: number },
  ): Promise<boolean | null> {
    try {
      const code = await client.getCode({ address: v.address });
      if (!code || code === '0x') return null;
      return await client.verifyMessage({ address: v.address, message: v.message, signature: v.signature });
    } catch (err) {
      this.deps.logger.warn({ chain_id: v.chainId, err: (err as Error).message }, 'contract wallet verification failed to reach the RPC');
      throw new ServiceUnavailableError(`cannot verify a contract wallet signature: chain ${v.chainId} RPC unreachable`, 'rpc_unavailable', 5);
    }
  }

  /**
   * The EOA signer of a personal_sign message, or null when the signature does not parse. A
   * signature that parses but is not canonical (high s, v not 27/28) is a 400 naming `field`.
   */
  async recover(message: string, signature: Hex, field = 'signature'): Promise<`0x${string}` | null> {
    if (signature.length === 132) assertCanonicalSignature(signature, field);
    try {
      return await recoverMessageAddress({ message, signature });
    } catch {
      return null;
    }
  }

  private async recoversTo(address: `0x${string}`, message: string, signature: Hex): Promise<boolean> {
    const signer = await this.recover(message, signature).catch(() => null);
    return signer !== null && isAddressEqual(signer, address);
  }

  private async clientFor(chainId: number): Promise<PublicClient | null> {
    const network = await this.deps.networks.network(chainId);
    if (!network || !network.enabled) return null;
    const url = network.rpc_urls.find((u) => u.startsWith('http://') || u.startsWith('https://'));
    if (!url) return null;
    let client = this.clients.get(url);
    if (!client) {
      client = createPublicClient({ transport: http(url, { timeout: this.deps.rpcTimeoutMs, retryCount: 0 }) });
      this.clients.set(url, client);
    }
    return client;
  }
}
